// Generated from the Rust option types (src/api/) by `cargo test --lib generated`; do not edit.
// `UPDATE_GENERATED=1 cargo test --lib generated` rewrites it.

/** The tools `tools()` describes and `callTool` runs. */
export type ToolName = 'store' | 'recall' | 'reconstruct' | 'traverse' | 'declare_associations' | 'get_contents' | 'delete_memory' | 'list_memories' | 'update_memory' | 'delete_agent_data' | 'list_entities' | 'history';

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

/** What a tool does to the memory, as MCP's tool annotations say it (hints for a host). */
export interface ToolAnnotations {
  /** Its name in words. */
  title: string;
  /** It does not write. */
  readOnlyHint: boolean;
  /** It can take away what was kept (a record, its text, a declared relation): ask first. */
  destructiveHint: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  idempotentHint: boolean;
  /** It touches only this memory. */
  openWorldHint: false;
}

/**
 * One tool for a function-calling model: its name, what it does, its arguments, the JSON
 * Schema of its response, and what it does to the memory.
 */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
  output_schema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
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
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "The project to write into; omitted or `\"\"` is the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "The channel to write into (`\"chat\"`, say); omitted or `\"\"` is channel-global.",
          "maxLength": 256
        },
        "content": {
          "type": "string",
          "description": "The text to remember.",
          "minLength": 1,
          "maxLength": 1048576
        },
        "timestamp": {
          "type": "string",
          "description": "When it happened, ISO-8601 (an offset or `Z`); stored in UTC. Defaults to now.",
          "maxLength": 64
        },
        "expires_at": {
          "type": "string",
          "description": "When it stops being true, ISO-8601; stored in UTC. From then on reads leave it out (an `as_of` before it still shows it) and `purge_expired` may delete it. Omitted: never.",
          "maxLength": 64
        },
        "source": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "type": {
              "type": "string",
              "description": "The kind of source: `User`, `Agent`, `System`, a tool's name…",
              "maxLength": 256
            },
            "id": {
              "type": "string",
              "description": "The source's id; recall, reconstruct and traverse can filter on it (`source_id`).",
              "maxLength": 256
            },
            "name": {
              "type": "string",
              "description": "A display name.",
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
                    "description": "Its canonical name, kept as written.",
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
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "predicate": {
                    "description": "What the subject is to the object (`maintains`, `supersedes`…), stored normalized.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "object": {
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "valid_from": {
                    "description": "When it began to hold, ISO-8601; omitted: since always. The same fact declared again from another `valid_from` is another relation beside this one.",
                    "type": "string",
                    "maxLength": 64
                  },
                  "valid_to": {
                    "description": "When it stopped holding, ISO-8601, after `valid_from`; omitted: until further notice (`invalidate` ends it later, with a reason).",
                    "type": "string",
                    "maxLength": 64
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
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "ok": {
          "type": "boolean",
          "const": true
        },
        "result": {
          "type": "string",
          "const": "stored"
        },
        "id": {
          "type": "integer"
        },
        "associations": {
          "type": "object",
          "properties": {
            "entities": {
              "type": "array",
              "items": {
                "required": [
                  "id",
                  "name",
                  "created"
                ],
                "type": "object",
                "properties": {
                  "id": {
                    "type": "integer"
                  },
                  "name": {
                    "type": "string"
                  },
                  "created": {
                    "type": "boolean"
                  }
                }
              }
            },
            "mentions": {
              "type": "integer",
              "minimum": 0
            },
            "relations": {
              "type": "array",
              "items": {
                "type": "integer"
              }
            },
            "conflicts": {
              "type": "array",
              "items": {
                "required": [
                  "relation_id",
                  "conflicts_with",
                  "subject",
                  "predicate",
                  "object"
                ],
                "type": "object",
                "properties": {
                  "relation_id": {
                    "type": "integer"
                  },
                  "conflicts_with": {
                    "type": "integer"
                  },
                  "subject": {
                    "type": "string"
                  },
                  "predicate": {
                    "type": "string"
                  },
                  "object": {
                    "type": "string"
                  }
                }
              }
            },
            "dropped": {
              "type": "array",
              "items": {
                "required": [
                  "item",
                  "reason"
                ],
                "type": "object",
                "properties": {
                  "item": {
                    "type": "string"
                  },
                  "reason": {
                    "type": "string"
                  }
                }
              }
            },
            "dropped_omitted": {
              "type": "integer",
              "minimum": 0
            }
          },
          "required": [
            "entities",
            "mentions",
            "relations",
            "dropped"
          ]
        }
      },
      "required": [
        "ok",
        "result",
        "id"
      ]
    },
    "annotations": {
      "title": "Store",
      "readOnlyHint": false,
      "destructiveHint": false,
      "idempotentHint": false,
      "openWorldHint": false
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
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records.",
          "maxLength": 256
        },
        "query": {
          "type": "string",
          "description": "What to look for (not empty). Any text: punctuation and search-syntax characters are read as text.",
          "minLength": 1,
          "maxLength": 4096
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
          "description": "Only memories whose source id equals this (episodes, which have no source, are then not read); omitted or `\"\"`: no filter.",
          "maxLength": 256
        },
        "as_of": {
          "type": "string",
          "description": "The instant to read the memory at, ISO-8601: only relations whose validity holds it and records not expired or invalidated by then. `\"all\"`: everything, each with its interval. Omitted: the current state (what ended before now is left out).",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id",
        "query"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "messages": {
          "type": "array",
          "items": {
            "required": [
              "ref",
              "content",
              "source",
              "timestamp",
              "match_reason"
            ],
            "type": "object",
            "properties": {
              "ref": {
                "type": "string"
              },
              "content": {
                "type": "string"
              },
              "source": {
                "required": [
                  "type",
                  "id",
                  "name"
                ],
                "type": "object",
                "properties": {
                  "type": {
                    "type": "string"
                  },
                  "id": {
                    "type": "string"
                  },
                  "name": {
                    "type": "string"
                  }
                }
              },
              "timestamp": {
                "type": "string"
              },
              "expires_at": {
                "type": "string"
              },
              "invalid_at": {
                "type": "string"
              },
              "invalid_reason": {
                "type": "string"
              },
              "match_reason": {
                "required": [
                  "signal",
                  "score",
                  "ranks"
                ],
                "type": "object",
                "properties": {
                  "signal": {
                    "type": "string"
                  },
                  "score": {
                    "type": "number"
                  },
                  "ranks": {
                    "additionalProperties": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "type": "object"
                  },
                  "rerank": {
                    "type": "number"
                  }
                }
              }
            }
          }
        },
        "gated": {
          "type": "integer",
          "minimum": 0
        },
        "dimension_skipped": {
          "type": "integer",
          "minimum": 0
        },
        "model_skipped": {
          "type": "integer",
          "minimum": 0
        },
        "not_holding": {
          "type": "integer",
          "minimum": 0
        }
      },
      "required": [
        "messages"
      ]
    },
    "annotations": {
      "title": "Recall",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
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
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records.",
          "maxLength": 256
        },
        "query": {
          "type": "string",
          "description": "The question to gather evidence for (not empty). Any text: punctuation and search-syntax characters are read as text.",
          "minLength": 1,
          "maxLength": 4096
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
          "description": "Only memories whose source id equals this (episodes are then not read); omitted or `\"\"`: no filter.",
          "maxLength": 256
        },
        "as_of": {
          "type": "string",
          "description": "The instant to read the memory at, ISO-8601: only relations whose validity holds it and records not expired or invalidated by then. `\"all\"`: everything, each with its interval. Omitted: the current state (what ended before now is left out).",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id",
        "query"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "items": {
          "type": "array",
          "items": {
            "required": [
              "content",
              "head_ref",
              "claims",
              "ranges"
            ],
            "type": "object",
            "properties": {
              "content": {
                "type": "string"
              },
              "head_ref": {
                "type": "string"
              },
              "claims": {
                "items": {
                  "required": [
                    "ref",
                    "as_of"
                  ],
                  "type": "object",
                  "properties": {
                    "ref": {
                      "type": "string"
                    },
                    "as_of": {
                      "type": "string"
                    },
                    "expires_at": {
                      "type": "string"
                    },
                    "invalid_at": {
                      "type": "string"
                    },
                    "invalid_reason": {
                      "type": "string"
                    },
                    "why": {
                      "type": "string"
                    },
                    "hops": {
                      "type": "integer"
                    },
                    "path": {
                      "items": {
                        "type": "integer"
                      },
                      "type": "array"
                    },
                    "via_entity": {
                      "type": "integer"
                    },
                    "roles": {
                      "items": {
                        "required": [
                          "ref",
                          "role"
                        ],
                        "type": "object",
                        "properties": {
                          "ref": {
                            "type": "string"
                          },
                          "role": {
                            "type": "string"
                          }
                        }
                      },
                      "type": "array"
                    }
                  }
                },
                "type": "array"
              },
              "claims_omitted": {
                "type": "integer"
              },
              "independence_reason": {
                "type": "string"
              },
              "quote_basis": {
                "type": "string",
                "enum": [
                  "whole",
                  "truncated"
                ]
              },
              "ranges": {
                "items": {
                  "type": "array",
                  "items": {
                    "type": "integer",
                    "minimum": 0
                  },
                  "minItems": 2,
                  "maxItems": 2
                },
                "type": "array"
              },
              "excerpts": {
                "items": {
                  "required": [
                    "ref",
                    "content"
                  ],
                  "type": "object",
                  "properties": {
                    "ref": {
                      "type": "string"
                    },
                    "content": {
                      "type": "string"
                    }
                  }
                },
                "type": "array"
              },
              "excerpts_omitted": {
                "type": "integer"
              }
            }
          }
        },
        "effective_count": {
          "type": "integer"
        },
        "returned_count": {
          "type": "integer",
          "minimum": 0
        },
        "bounds": {
          "type": "object",
          "properties": {
            "top_k": {
              "type": "integer"
            },
            "max_hops": {
              "type": "integer"
            },
            "max_evidence": {
              "type": "integer"
            },
            "omitted": {
              "type": "array",
              "items": {
                "enum": [
                  "max_hops",
                  "max_evidence"
                ]
              }
            },
            "reached": {
              "type": "array",
              "items": {
                "enum": [
                  "max_evidence"
                ]
              }
            },
            "lowered": {
              "type": "array",
              "items": {
                "enum": [
                  "count",
                  "top_k",
                  "max_hops",
                  "max_evidence",
                  "budget"
                ]
              }
            },
            "not_holding": {
              "type": "integer"
            }
          },
          "required": [
            "top_k",
            "max_hops",
            "max_evidence"
          ]
        },
        "shortfall_reason": {
          "type": "string",
          "enum": [
            "no_relevant_evidence",
            "budget_exhausted",
            "exhausted_candidates"
          ]
        },
        "effective_budget": {
          "type": "integer"
        },
        "used_budget": {
          "type": "integer"
        },
        "trace": {
          "type": "object",
          "properties": {
            "candidate_refs": {
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "clusters": {
              "type": "array",
              "items": {
                "type": "array",
                "items": {
                  "type": "string"
                }
              }
            },
            "cues": {
              "type": "object",
              "properties": {
                "entities": {
                  "type": "array",
                  "items": {
                    "type": "string"
                  }
                },
                "terms": {
                  "type": "array",
                  "items": {
                    "type": "string"
                  }
                }
              },
              "required": [
                "entities",
                "terms"
              ]
            },
            "gated": {
              "type": "integer",
              "minimum": 0
            }
          },
          "required": [
            "candidate_refs",
            "clusters",
            "cues"
          ]
        }
      },
      "required": [
        "items",
        "effective_count",
        "returned_count"
      ]
    },
    "annotations": {
      "title": "Reconstruct",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
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
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records.",
          "maxLength": 256
        },
        "entity": {
          "type": "string",
          "description": "A declared name or alias of the entity (the longest a declaration accepts).",
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
          "description": "Only records whose source id equals this are listed (episodes, which have no source, are then left out); omitted or `\"\"`: no filter.",
          "maxLength": 256
        },
        "as_of": {
          "type": "string",
          "description": "The instant to read the memory at, ISO-8601: only relations whose validity holds it and records not expired or invalidated by then. `\"all\"`: everything, each with its interval. Omitted: the current state (what ended before now is left out).",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id",
        "entity"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "entity": {
          "type": "string"
        },
        "max_hops": {
          "type": "integer"
        },
        "limit": {
          "type": "integer"
        },
        "entities": {
          "type": "array",
          "items": {
            "required": [
              "id",
              "name",
              "hops"
            ],
            "type": "object",
            "properties": {
              "id": {
                "type": "integer"
              },
              "name": {
                "type": "string"
              },
              "hops": {
                "type": "integer"
              },
              "aliases": {
                "items": {
                  "type": "string"
                },
                "type": "array"
              },
              "mentions": {
                "items": {
                  "type": "string"
                },
                "type": "array"
              },
              "mentions_omitted": {
                "type": "integer"
              }
            }
          }
        },
        "relations": {
          "type": "array",
          "items": {
            "required": [
              "id",
              "subject",
              "predicate",
              "object",
              "declared_by",
              "declared_at"
            ],
            "type": "object",
            "properties": {
              "id": {
                "type": "integer"
              },
              "subject": {
                "type": "integer"
              },
              "predicate": {
                "type": "string"
              },
              "object": {
                "type": "integer"
              },
              "declared_by": {
                "type": "string",
                "enum": [
                  "agent",
                  "operator"
                ]
              },
              "declared_at": {
                "type": "string"
              },
              "anchor_ref": {
                "type": "string"
              },
              "valid_from": {
                "type": "string"
              },
              "valid_to": {
                "type": "string"
              },
              "closed_by": {
                "type": "string",
                "enum": [
                  "agent",
                  "operator"
                ]
              },
              "closed_at": {
                "type": "string"
              },
              "closed_reason": {
                "type": "string"
              }
            }
          }
        },
        "entities_omitted": {
          "type": "integer"
        },
        "bounds": {
          "type": "object",
          "properties": {
            "omitted": {
              "type": "array",
              "items": {
                "enum": [
                  "max_hops",
                  "limit"
                ]
              }
            },
            "not_holding": {
              "type": "integer"
            }
          },
          "required": [
            "omitted"
          ]
        },
        "reason": {
          "type": "string",
          "enum": [
            "no_such_entity"
          ]
        }
      },
      "required": [
        "entity",
        "max_hops",
        "limit",
        "entities",
        "relations"
      ]
    },
    "annotations": {
      "title": "Traverse",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    }
  },
  {
    "name": "declare_associations",
    "description": "Declares entities, aliases and relations (optionally as evidenced by one record, and with when each began and stopped holding), invalidates relations and records that stopped holding (kept as history, with the reason), declares predicates single-valued (a second object for a subject is then returned as a conflict), or retracts relations and mentions declared earlier (a declaration that was wrong). Malformed items are listed in `dropped` and skipped; the rest is applied.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "The project to write into; omitted or `\"\"` is the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "The channel to write into (`\"chat\"`, say); omitted or `\"\"` is channel-global.",
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
                    "description": "Its canonical name, kept as written.",
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
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "predicate": {
                    "description": "What the subject is to the object (`maintains`, `supersedes`…), stored normalized.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "object": {
                    "description": "An entity name (registered if new) or a record ref `\"mem:<id>\"` / `\"ep:<id>\"`.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  },
                  "valid_from": {
                    "description": "When it began to hold, ISO-8601; omitted: since always. The same fact declared again from another `valid_from` is another relation beside this one.",
                    "type": "string",
                    "maxLength": 64
                  },
                  "valid_to": {
                    "description": "When it stopped holding, ISO-8601, after `valid_from`; omitted: until further notice (`invalidate` ends it later, with a reason).",
                    "type": "string",
                    "maxLength": 64
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
          "description": "The record the declaration rests on, `\"mem:<id>\"` or `\"ep:<id>\"`: every entity declared is marked as mentioned by it, and relations carry it as their evidence.",
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
        },
        "invalidate": {
          "type": "array",
          "items": {
            "description": "One relation or record to invalidate: `{ relation_id, at?, reason }` or `{ ref, at?, reason }`.",
            "anyOf": [
              {
                "description": "A relation that stopped holding.",
                "type": "object",
                "properties": {
                  "relation_id": {
                    "description": "The relation's id, as declarations and reads return it.",
                    "type": "integer"
                  },
                  "at": {
                    "description": "When it stopped holding, ISO-8601, after its `valid_from` and before an end it already has; omitted: now.",
                    "type": "string",
                    "maxLength": 64
                  },
                  "reason": {
                    "description": "Why, 1–256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  }
                },
                "additionalProperties": false,
                "required": [
                  "relation_id",
                  "reason"
                ]
              },
              {
                "description": "A memory or episode that stopped being true.",
                "type": "object",
                "properties": {
                  "ref": {
                    "description": "The record, `\"mem:<id>\"` or `\"ep:<id>\"`.",
                    "type": "string",
                    "maxLength": 64
                  },
                  "at": {
                    "description": "When it stopped being true, ISO-8601, before an invalidation it already has; omitted: now.",
                    "type": "string",
                    "maxLength": 64
                  },
                  "reason": {
                    "description": "Why, 1–256 characters.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  }
                },
                "additionalProperties": false,
                "required": [
                  "ref",
                  "reason"
                ]
              }
            ]
          },
          "description": "Relations that stopped holding, and records that stopped being true: each is closed at `at` (default: now) with its reason and kept as history, never deleted. At most 64; more are dropped.",
          "maxItems": 64
        },
        "predicates": {
          "type": "array",
          "items": {
            "description": "A predicate's arity for the call's project and channel.",
            "type": "object",
            "properties": {
              "name": {
                "description": "The predicate, compared as relations store it (normalized).",
                "type": "string",
                "minLength": 1,
                "maxLength": 256
              },
              "single": {
                "description": "`true`: a subject holds one object at a time, and a second is a conflict; `false`: any number (the default of every predicate).",
                "type": "boolean"
              }
            },
            "additionalProperties": false,
            "required": [
              "name",
              "single"
            ]
          },
          "description": "Predicates declared single-valued (`single: true`) or multi-valued again (`single: false`) for the call's project and channel: declaring a relation whose subject holds a current one with a single-valued predicate and another object returns `conflicts`. At most 64; more are dropped.",
          "maxItems": 64
        }
      },
      "required": [
        "agent_id"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "ok": {
          "type": "boolean",
          "const": true
        },
        "result": {
          "type": "string",
          "const": "declared"
        },
        "entities": {
          "type": "array",
          "items": {
            "required": [
              "id",
              "name",
              "created"
            ],
            "type": "object",
            "properties": {
              "id": {
                "type": "integer"
              },
              "name": {
                "type": "string"
              },
              "created": {
                "type": "boolean"
              }
            }
          }
        },
        "mentions": {
          "type": "integer",
          "minimum": 0
        },
        "relations": {
          "type": "array",
          "items": {
            "type": "integer"
          }
        },
        "conflicts": {
          "type": "array",
          "items": {
            "required": [
              "relation_id",
              "conflicts_with",
              "subject",
              "predicate",
              "object"
            ],
            "type": "object",
            "properties": {
              "relation_id": {
                "type": "integer"
              },
              "conflicts_with": {
                "type": "integer"
              },
              "subject": {
                "type": "string"
              },
              "predicate": {
                "type": "string"
              },
              "object": {
                "type": "string"
              }
            }
          }
        },
        "dropped": {
          "type": "array",
          "items": {
            "required": [
              "item",
              "reason"
            ],
            "type": "object",
            "properties": {
              "item": {
                "type": "string"
              },
              "reason": {
                "type": "string"
              }
            }
          }
        },
        "dropped_omitted": {
          "type": "integer",
          "minimum": 0
        },
        "retracted": {
          "type": "object",
          "properties": {
            "relations": {
              "type": "integer",
              "minimum": 0
            },
            "mentions": {
              "type": "integer",
              "minimum": 0
            }
          },
          "required": [
            "relations",
            "mentions"
          ]
        },
        "invalidated": {
          "type": "object",
          "properties": {
            "relations": {
              "type": "array",
              "items": {
                "type": "integer"
              }
            },
            "records": {
              "type": "array",
              "items": {
                "type": "string"
              }
            }
          },
          "required": [
            "relations",
            "records"
          ]
        }
      },
      "required": [
        "ok",
        "result",
        "entities",
        "mentions",
        "relations",
        "dropped"
      ]
    },
    "annotations": {
      "title": "Declare associations",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": true,
      "openWorldHint": false
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
          "description": "Whose memory this is; another agent's refs come back in `missing`.",
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
        },
        "as_of": {
          "type": "string",
          "description": "The instant to read at, ISO-8601, as the other reads take it: a record expired or invalidated by then comes back in `missing`. `\"all\"`: every record. Omitted: now.",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id",
        "refs"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "items": {
          "type": "array",
          "items": {
            "required": [
              "ref",
              "content",
              "source",
              "timestamp"
            ],
            "type": "object",
            "properties": {
              "ref": {
                "type": "string"
              },
              "content": {
                "type": "string"
              },
              "source": {
                "required": [
                  "type",
                  "id",
                  "name"
                ],
                "type": "object",
                "properties": {
                  "type": {
                    "type": "string"
                  },
                  "id": {
                    "type": "string"
                  },
                  "name": {
                    "type": "string"
                  }
                }
              },
              "timestamp": {
                "type": "string"
              },
              "expires_at": {
                "type": "string"
              },
              "invalid_at": {
                "type": "string"
              },
              "invalid_reason": {
                "type": "string"
              },
              "metadata": {
                "additionalProperties": true,
                "type": "object"
              }
            }
          }
        },
        "missing": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "count": {
          "type": "integer",
          "minimum": 0
        }
      },
      "required": [
        "items",
        "missing",
        "count"
      ]
    },
    "annotations": {
      "title": "Get contents",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
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
        }
      },
      "required": [
        "agent_id",
        "memory_id"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "ok": {
          "type": "boolean",
          "const": true
        },
        "deleted_id": {
          "type": "integer"
        }
      },
      "required": [
        "ok",
        "deleted_id"
      ]
    },
    "annotations": {
      "title": "Delete memory",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": true,
      "openWorldHint": false
    }
  },
  {
    "name": "list_memories",
    "description": "A page of the agent's memories, newest first (by timestamp, then id), with their content, source and metadata: what this agent knows, a page at a time.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records.",
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
        },
        "max_content": {
          "type": "integer",
          "maximum": 1048576,
          "description": "Characters of each content to return; a longer one is cut and marked `truncated` (get_contents reads it whole), 0 lists the metadata only. Omitted: all of it.",
          "minimum": 0
        },
        "as_of": {
          "type": "string",
          "description": "The instant to read the memory at, ISO-8601: only relations whose validity holds it and records not expired or invalidated by then. `\"all\"`: everything, each with its interval. Omitted: the current state (what ended before now is left out).",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "memories": {
          "type": "array",
          "items": {
            "required": [
              "id",
              "content",
              "timestamp",
              "created_at",
              "source",
              "project_id",
              "channel"
            ],
            "type": "object",
            "properties": {
              "id": {
                "type": "integer"
              },
              "content": {
                "type": "string"
              },
              "truncated": {
                "type": "boolean"
              },
              "timestamp": {
                "type": "string"
              },
              "created_at": {
                "type": "string"
              },
              "source": {
                "required": [
                  "type",
                  "id",
                  "name"
                ],
                "type": "object",
                "properties": {
                  "type": {
                    "type": "string"
                  },
                  "id": {
                    "type": "string"
                  },
                  "name": {
                    "type": "string"
                  }
                }
              },
              "metadata": {
                "additionalProperties": true,
                "type": "object"
              },
              "project_id": {
                "type": "string"
              },
              "channel": {
                "type": "string"
              },
              "expires_at": {
                "type": "string"
              },
              "invalid_at": {
                "type": "string"
              },
              "invalid_reason": {
                "type": "string"
              }
            }
          }
        },
        "count": {
          "type": "integer"
        },
        "total": {
          "type": "integer"
        },
        "next_offset": {
          "type": "integer"
        },
        "not_holding": {
          "type": "integer"
        }
      },
      "required": [
        "memories",
        "count",
        "total"
      ]
    },
    "annotations": {
      "title": "List memories",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    }
  },
  {
    "name": "update_memory",
    "description": "Corrects one memory of the agent: its content, metadata, timestamp or expiry (at least one). Its id stays, and so do the mentions and relations declared on it; lexical search follows the new content at once. A new content drops a stored embedding unless a new one is given, since the old vector described the old text.",
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
        "expires_at": {
          "type": "string",
          "description": "When it stops being true, ISO-8601; stored in UTC. `\"\"` clears it (never expires); omitted leaves it as it is.",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id",
        "memory_id"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "ok": {
          "type": "boolean",
          "const": true
        },
        "updated_id": {
          "type": "integer"
        }
      },
      "required": [
        "ok",
        "updated_id"
      ]
    },
    "annotations": {
      "title": "Update memory",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": true,
      "openWorldHint": false
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
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "ok": {
          "type": "boolean",
          "const": true
        },
        "agent_id": {
          "type": "string"
        },
        "deleted_memories": {
          "type": "integer"
        },
        "deleted_episodes": {
          "type": "integer"
        },
        "deleted_entities": {
          "type": "integer"
        },
        "deleted_relations": {
          "type": "integer"
        }
      },
      "required": [
        "ok",
        "agent_id",
        "deleted_memories",
        "deleted_episodes",
        "deleted_entities",
        "deleted_relations"
      ]
    },
    "annotations": {
      "title": "Delete agent data",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": true,
      "openWorldHint": false
    }
  },
  {
    "name": "list_entities",
    "description": "A page of the agent's entities with alias, mention and relation counts, by normalized name then id.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records.",
          "maxLength": 256
        },
        "query": {
          "type": "string",
          "description": "Only entities whose normalized name or an alias contains this, normalized (the longest name a declaration accepts).",
          "maxLength": 256
        },
        "offset": {
          "type": "integer",
          "minimum": 0,
          "description": "Entities to skip."
        },
        "limit": {
          "type": "integer",
          "maximum": 500,
          "description": "Entities per page, 1–500 (default 100).",
          "minimum": 1
        },
        "as_of": {
          "type": "string",
          "description": "The instant to read the memory at, ISO-8601: only relations whose validity holds it and records not expired or invalidated by then. `\"all\"`: everything, each with its interval. Omitted: the current state (what ended before now is left out).",
          "maxLength": 64
        }
      },
      "required": [
        "agent_id"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "entities": {
          "type": "array",
          "items": {
            "required": [
              "id",
              "name",
              "aliases",
              "mentions",
              "relations",
              "declared_by",
              "created_at",
              "project_id",
              "channel"
            ],
            "type": "object",
            "properties": {
              "id": {
                "type": "integer"
              },
              "name": {
                "type": "string"
              },
              "aliases": {
                "items": {
                  "type": "string"
                },
                "type": "array"
              },
              "mentions": {
                "type": "integer"
              },
              "relations": {
                "type": "integer"
              },
              "declared_by": {
                "type": "string",
                "enum": [
                  "agent",
                  "operator"
                ]
              },
              "created_at": {
                "type": "string"
              },
              "project_id": {
                "type": "string"
              },
              "channel": {
                "type": "string"
              }
            }
          }
        },
        "total": {
          "type": "integer"
        },
        "next_offset": {
          "type": "integer"
        },
        "not_holding": {
          "type": "integer"
        }
      },
      "required": [
        "entities",
        "total"
      ]
    },
    "annotations": {
      "title": "List entities",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    }
  },
  {
    "name": "history",
    "description": "An entity's timeline: every relation between it and another entity, whether it holds now or was closed (with who closed it, when and why), in time order — by when it began to hold, or was declared when that is not known — then by id. Paged.",
    "input_schema": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "agent_id": {
          "type": "string",
          "description": "Whose memory this is. Agents never read each other's records.",
          "minLength": 1,
          "maxLength": 256
        },
        "project_id": {
          "type": "string",
          "description": "Omitted: every project; `\"\"`: the global pool only; `\"X\"`: project X and the global pool.",
          "maxLength": 256
        },
        "channel": {
          "type": "string",
          "description": "Omitted or `\"\"`: every channel; `\"X\"`: channel X and channel-global records.",
          "maxLength": 256
        },
        "entity": {
          "type": "string",
          "description": "A declared name or alias of the entity.",
          "maxLength": 256
        },
        "limit": {
          "type": "integer",
          "maximum": 100,
          "description": "Relations per page, 1–100 (default 50).",
          "minimum": 1
        },
        "offset": {
          "type": "integer",
          "minimum": 0,
          "description": "Relations to skip."
        }
      },
      "required": [
        "agent_id",
        "entity"
      ]
    },
    "output_schema": {
      "type": "object",
      "properties": {
        "entity": {
          "type": "object",
          "properties": {
            "id": {
              "type": "integer"
            },
            "name": {
              "type": "string"
            }
          },
          "required": [
            "id",
            "name"
          ]
        },
        "relations": {
          "type": "array",
          "items": {
            "required": [
              "id",
              "subject",
              "predicate",
              "object",
              "declared_by",
              "declared_at",
              "subject_name",
              "object_name"
            ],
            "type": "object",
            "properties": {
              "id": {
                "type": "integer"
              },
              "subject": {
                "type": "integer"
              },
              "predicate": {
                "type": "string"
              },
              "object": {
                "type": "integer"
              },
              "declared_by": {
                "type": "string",
                "enum": [
                  "agent",
                  "operator"
                ]
              },
              "declared_at": {
                "type": "string"
              },
              "anchor_ref": {
                "type": "string"
              },
              "valid_from": {
                "type": "string"
              },
              "valid_to": {
                "type": "string"
              },
              "closed_by": {
                "type": "string",
                "enum": [
                  "agent",
                  "operator"
                ]
              },
              "closed_at": {
                "type": "string"
              },
              "closed_reason": {
                "type": "string"
              },
              "subject_name": {
                "type": "string"
              },
              "object_name": {
                "type": "string"
              }
            }
          }
        },
        "total": {
          "type": "integer"
        },
        "next_offset": {
          "type": "integer"
        },
        "reason": {
          "type": "string",
          "enum": [
            "no_such_entity"
          ]
        }
      },
      "required": [
        "relations",
        "total"
      ]
    },
    "annotations": {
      "title": "History",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    }
  }
];
