// Generated from the Rust option types (src/api/) by `cargo test --lib generated`; do not edit.
// `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.

/** The tools `tools()` describes and `callTool` runs. */
export type ToolName = 'store' | 'recall' | 'reconstruct' | 'traverse' | 'declare_associations' | 'get_contents' | 'delete_memory' | 'list_memories' | 'update_memory' | 'delete_agent_data';

/** A JSON Schema, as the tool definitions use it. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  [keyword: string]: unknown;
}

/** One tool for a function-calling model: its name, what it does, and its arguments. */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
}

/** The tool definitions: each options type's JSON Schema, its doc comment the description. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    "name": "store",
    "description": "Stores a piece of text as a memory (its ref is `mem:<id>`), optionally declaring the entities it mentions and the relations it asserts, which traverse and reconstruct then follow. The memory is stored even when its associations are malformed: what was dropped is listed in the response.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "The project to write into; omitted or `\"\"` is the global pool. At most 256 characters.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "The channel to write into (`\"chat\"`, say); omitted or `\"\"` is channel-global. At most 256 characters.",
          "maxLength": 256
        },
        "content": {
          "type": "string",
          "description": "The text to remember, at most 1048576 characters.",
          "minLength": 1,
          "maxLength": 1048576
        },
        "timestamp": {
          "type": "string",
          "description": "When it happened, ISO-8601 (an offset or `Z`); stored in UTC. Defaults to now.",
          "maxLength": 64
        },
        "source": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "type": {
              "type": "string",
              "description": "The kind of source: `User`, `Agent`, `System`, a tool's name… At most 256 characters.",
              "maxLength": 256
            },
            "id": {
              "type": "string",
              "description": "The source's id; recall, reconstruct and traverse can filter on it (`source_id`). At most 256 characters.",
              "maxLength": 256
            },
            "name": {
              "type": "string",
              "description": "A display name. At most 256 characters.",
              "maxLength": 256
            }
          },
          "description": "Who produced the text."
        },
        "metadata": {
          "type": "object",
          "additionalProperties": true,
          "description": "Any JSON object, kept with the memory and returned by get_contents; at most 65536 characters written as JSON."
        },
        "embedding": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "The text's embedding, for vector retrieval: 1–8192 finite numbers.",
          "minItems": 1,
          "maxItems": 8192
        },
        "embedding_model": {
          "type": "string",
          "description": "The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters, stored with it: the vector arm compares vectors only with a query embedding of the same model. Omitted: not named, compared only with query embeddings whose model is not named either.",
          "minLength": 1,
          "maxLength": 256
        },
        "associations": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "entities": {
              "type": "array",
              "items": {
                "description": "One declared entity.",
                "type": "object",
                "properties": {
                  "name": {
                    "description": "Its canonical name, kept as written; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "aliases": {
                    "description": "Other names for it, in any script, each at most 256 characters. A name belongs to one entity only. At most 32; more are dropped.",
                    "type": "array",
                    "items": {
                      "type": "string",
                      "minLength": 1,
                      "maxLength": 256
                    },
                    "maxItems": 32
                  }
                },
                "additionalProperties": false,
                "required": [
                  "name"
                ]
              },
              "description": "Entities the text is about. Each is registered if new (names compare after Unicode normalization and case folding) and marked as mentioned by the anchor record. At most 64; more are dropped.",
              "maxItems": 64
            },
            "relations": {
              "type": "array",
              "items": {
                "description": "One declared relation.",
                "type": "object",
                "properties": {
                  "subject": {
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "predicate": {
                    "description": "What the subject is to the object (`maintains`, `supersedes`…), stored normalized; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "object": {
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  }
                },
                "additionalProperties": false,
                "required": [
                  "subject",
                  "predicate",
                  "object"
                ]
              },
              "description": "Facts as subject–predicate–object. At most 64; more are dropped.",
              "maxItems": 64
            }
          },
          "description": "What the text mentions and asserts. Read leniently: a malformed item is listed in `associations.dropped` and skipped; it never blocks the store."
        }
      },
      "required": [
        "agent_id",
        "content"
      ]
    }
  },
  {
    "name": "recall",
    "description": "Searches the memory for the records that answer a query: lexical matching, and vector similarity when a query embedding is given, fused into one order. Returns messages with their ref, text, source, time and why each matched. Declared associations never change what recall returns.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool. At most 256 characters.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records. At most 256 characters.",
          "maxLength": 256
        },
        "query": {
          "type": "string",
          "description": "What to look for (not empty), at most 4096 characters. Any text: punctuation and search-syntax characters are read as text.",
          "minLength": 1,
          "maxLength": 4096
        },
        "query_embedding": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "The query's embedding; turns on vector retrieval over records stored with an embedding of the same model and dimension. 1–8192 finite numbers.",
          "minItems": 1,
          "maxItems": 8192
        },
        "query_embedding_model": {
          "type": "string",
          "description": "The model that made `query_embedding`, as stores name it: records stored with a vector of another model (or none named, when this is given) are skipped and counted.",
          "minLength": 1,
          "maxLength": 256
        },
        "limit": {
          "type": "integer",
          "maximum": 100,
          "description": "Most messages returned, 1–100 (default 10).",
          "minimum": 1
        },
        "deep": {
          "type": "boolean",
          "description": "Admit weaker matches too (halves the admission threshold)."
        },
        "source_id": {
          "type": "string",
          "description": "Only memories whose source id equals this (episodes, which have no source, are then not read); omitted or `\"\"`: no filter. At most 256 characters.",
          "maxLength": 256
        }
      },
      "required": [
        "agent_id",
        "query"
      ]
    }
  },
  {
    "name": "reconstruct",
    "description": "Gathers the evidence for a query: the records that bear on it, grouped into items, each with its head record's text, the claims behind it (newest first, with why each is there, including records reached over declared relations) and excerpts, within a character budget. A bound past its cap is lowered to the cap and `bounds.lowered` names it.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool. At most 256 characters.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records. At most 256 characters.",
          "maxLength": 256
        },
        "query": {
          "type": "string",
          "description": "The question to gather evidence for (not empty), at most 4096 characters. Any text: punctuation and search-syntax characters are read as text.",
          "minLength": 1,
          "maxLength": 4096
        },
        "query_embedding": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "The query's embedding; turns on vector retrieval. 1–8192 finite numbers.",
          "minItems": 1,
          "maxItems": 8192
        },
        "query_embedding_model": {
          "type": "string",
          "description": "The model that made `query_embedding`, as stores name it: records stored with a vector of another model (or none named, when this is given) are skipped and counted.",
          "minLength": 1,
          "maxLength": 256
        },
        "count": {
          "type": "integer",
          "minimum": 0,
          "description": "Most items returned (default 10, at most 50)."
        },
        "top_k": {
          "type": "integer",
          "minimum": 1,
          "description": "Candidates each retrieval arm contributes before grouping (default 20, at most 100)."
        },
        "max_hops": {
          "type": "integer",
          "minimum": 0,
          "description": "Declared relations the walk follows from each item's entities (default 2, at most 5)."
        },
        "max_evidence": {
          "type": "integer",
          "minimum": 1,
          "description": "Most claims kept per item (default 40, at most 100)."
        },
        "budget": {
          "type": "integer",
          "minimum": 1,
          "description": "Characters of quoted text, item heads first, then excerpts (default 6000, at most 200000)."
        },
        "deep": {
          "type": "boolean",
          "description": "Admit weaker matches among the candidates (halves the admission threshold)."
        },
        "trace": {
          "type": "boolean",
          "description": "Also return the candidate refs, the clusters and the name cues used."
        },
        "source_id": {
          "type": "string",
          "description": "Only memories whose source id equals this (episodes are then not read); omitted or `\"\"`: no filter. At most 256 characters.",
          "maxLength": 256
        }
      },
      "required": [
        "agent_id",
        "query"
      ]
    }
  },
  {
    "name": "traverse",
    "description": "Looks an entity up by any of its names (compared after Unicode normalization and case folding) and returns its neighbourhood: the entities reached through declared relations followed from either end up to `max_hops`, those relations, and the refs of the records that mention each entity.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool. At most 256 characters.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records. At most 256 characters.",
          "maxLength": 256
        },
        "entity": {
          "type": "string",
          "description": "A declared name or alias of the entity, at most 256 characters (the longest a declaration accepts).",
          "maxLength": 256
        },
        "max_hops": {
          "type": "integer",
          "maximum": 5,
          "description": "Relations to follow, 0–5 (default 1); 0 returns the entity alone.",
          "minimum": 0
        },
        "limit": {
          "type": "integer",
          "maximum": 100,
          "description": "Entities returned, and refs listed per entity, 1–100 (default 20).",
          "minimum": 1
        },
        "source_id": {
          "type": "string",
          "description": "Only records whose source id equals this are listed (episodes, which have no source, are then left out); omitted or `\"\"`: no filter. At most 256 characters.",
          "maxLength": 256
        }
      },
      "required": [
        "agent_id",
        "entity"
      ]
    }
  },
  {
    "name": "declare_associations",
    "description": "Declares entities, aliases and relations (optionally as evidenced by one record), or retracts relations and mentions declared earlier. Malformed items are listed in `dropped` and skipped; the rest is applied.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "The project to write into; omitted or `\"\"` is the global pool. At most 256 characters.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "The channel to write into (`\"chat\"`, say); omitted or `\"\"` is channel-global. At most 256 characters.",
          "maxLength": 256
        },
        "associations": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "entities": {
              "type": "array",
              "items": {
                "description": "One declared entity.",
                "type": "object",
                "properties": {
                  "name": {
                    "description": "Its canonical name, kept as written; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "aliases": {
                    "description": "Other names for it, in any script, each at most 256 characters. A name belongs to one entity only. At most 32; more are dropped.",
                    "type": "array",
                    "items": {
                      "type": "string",
                      "minLength": 1,
                      "maxLength": 256
                    },
                    "maxItems": 32
                  }
                },
                "additionalProperties": false,
                "required": [
                  "name"
                ]
              },
              "description": "Entities the text is about. Each is registered if new (names compare after Unicode normalization and case folding) and marked as mentioned by the anchor record. At most 64; more are dropped.",
              "maxItems": 64
            },
            "relations": {
              "type": "array",
              "items": {
                "description": "One declared relation.",
                "type": "object",
                "properties": {
                  "subject": {
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "predicate": {
                    "description": "What the subject is to the object (`maintains`, `supersedes`…), stored normalized; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "object": {
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`; at most 256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  }
                },
                "additionalProperties": false,
                "required": [
                  "subject",
                  "predicate",
                  "object"
                ]
              },
              "description": "Facts as subject–predicate–object. At most 64; more are dropped.",
              "maxItems": 64
            }
          },
          "description": "The entities and relations to declare."
        },
        "anchor_ref": {
          "type": "string",
          "description": "The record the declaration rests on, `\"mem:<id>\"` or `\"ep:<id>\"`: every entity declared is marked as mentioned by it, and relations carry it as their evidence. At most 64 characters.",
          "maxLength": 64
        },
        "retract": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "relations": {
              "type": "array",
              "items": {
                "type": "integer"
              },
              "description": "Ids of relations to remove. At most 64; more are dropped.",
              "maxItems": 64
            },
            "mentions": {
              "type": "array",
              "items": {
                "description": "One mention to retract.",
                "type": "object",
                "properties": {
                  "entity": {
                    "description": "The entity's id.",
                    "type": "integer"
                  },
                  "ref": {
                    "description": "The record's ref, `\"mem:<id>\"` or `\"ep:<id>\"`.",
                    "type": "string"
                  }
                },
                "additionalProperties": false,
                "required": [
                  "entity",
                  "ref"
                ]
              },
              "description": "Mentions to remove. At most 64; more are dropped.",
              "maxItems": 64
            }
          },
          "description": "Declarations to take back."
        }
      },
      "required": [
        "agent_id"
      ]
    }
  },
  {
    "name": "get_contents",
    "description": "Fetches the full text of records by ref (`\"mem:<id>\"` or `\"ep:<id>\"`), as recall, reconstruct and traverse return them. A ref that names no record of this agent comes back in `missing`.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is; another agent's refs come back in `missing`. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "refs": {
          "type": "array",
          "items": {
            "type": "string",
            "maxLength": 64
          },
          "description": "1–20 refs, each at most 64 characters. A ref of another shape names no record and comes back in `missing`.",
          "minItems": 1,
          "maxItems": 20
        }
      },
      "required": [
        "agent_id",
        "refs"
      ]
    }
  },
  {
    "name": "delete_memory",
    "description": "Forgets one memory, with every mention and relation that rests on it.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "memory_id": {
          "anyOf": [
            {
              "type": "integer",
              "minimum": 1
            },
            {
              "type": "string",
              "pattern": "^mem:[0-9]+$"
            }
          ],
          "description": "The memory's id, or its ref `mem:<id>` as recall, reconstruct and traverse return it."
        }
      },
      "required": [
        "agent_id",
        "memory_id"
      ]
    }
  },
  {
    "name": "list_memories",
    "description": "A page of the agent's memories, newest first (by timestamp, then id), with their full content, source and metadata.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records. At most 256 characters.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool. At most 256 characters.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records. At most 256 characters.",
          "maxLength": 256
        },
        "limit": {
          "type": "integer",
          "maximum": 500,
          "description": "Memories per page, 1–500 (default 100).",
          "minimum": 1
        },
        "offset": {
          "type": "integer",
          "minimum": 0,
          "description": "Memories to skip (the `next_offset` of the previous page)."
        }
      },
      "required": [
        "agent_id"
      ]
    }
  },
  {
    "name": "update_memory",
    "description": "Corrects one memory of the agent: its content, metadata or timestamp (at least one). Its id stays, and so do the mentions and relations declared on it; lexical search follows the new content at once. A new content drops a stored embedding unless a new one is given, since the old vector described the old text.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is.",
          "minLength": 1,
          "maxLength": 256
        },
        "memory_id": {
          "anyOf": [
            {
              "type": "integer",
              "minimum": 1
            },
            {
              "type": "string",
              "pattern": "^mem:[0-9]+$"
            }
          ],
          "description": "The memory's id, or its ref `mem:<id>` as recall, reconstruct and traverse return it."
        },
        "content": {
          "type": "string",
          "description": "The new text.",
          "minLength": 1,
          "maxLength": 1048576
        },
        "metadata": {
          "type": "object",
          "additionalProperties": true,
          "description": "The new metadata, replacing the old (any JSON object)."
        },
        "timestamp": {
          "type": "string",
          "description": "The new time of the memory, ISO-8601; stored in UTC.",
          "maxLength": 64
        },
        "embedding": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "The new text's embedding.",
          "minItems": 1,
          "maxItems": 8192
        },
        "embedding_model": {
          "type": "string",
          "description": "The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters, stored with it: the vector arm compares vectors only with a query embedding of the same model. Omitted: not named, compared only with query embeddings whose model is not named either.",
          "minLength": 1,
          "maxLength": 256
        }
      },
      "required": [
        "agent_id",
        "memory_id"
      ]
    }
  },
  {
    "name": "delete_agent_data",
    "description": "Deletes every memory, episode, entity (with its aliases and mentions) and relation of one agent, in every project and channel. Other agents' data is untouched.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "The agent whose data is deleted.",
          "minLength": 1,
          "maxLength": 256
        }
      },
      "required": [
        "agent_id"
      ]
    }
  }
];
