// Writes www/explorer/corpus.json, the explorer's demo corpus: the first five weeks' 100 notes
// (corpus-first-weeks.json, 28 Sep – 30 Oct 2026, written for the project's first demo page)
// given a source each, then six more weeks of the same fictional team (2 Nov – 11 Dec 2026).
// Written for this project.
//
//   node www/explorer/make-corpus.mjs
//
// Each note lists the entities it mentions (with their aliases, Latin and Japanese) and the
// relations it asserts; a few relate one record to another with a role predicate
// (supports, corrects, supersedes, contradicts, qualifies), written '@key' here and turned
// into 'mem:<id>' below (ids follow the order of storage into a fresh memory).
//
// Facts in time (issue 39): a few relations end as the story goes (`ENDED`: who stopped
// maintaining what, when and why). corpus.json lists them under `ended`; the explorer closes
// each with `invalidate` as the agent, with its reason, when its clock reaches `closed` while
// it stores the notes, so the relation stays as history (the graph at all time, an entity's
// timeline) while the current graph leaves it out.

import { readFileSync, writeFileSync } from 'node:fs';

const firstWeeks = JSON.parse(readFileSync(new URL('./corpus-first-weeks.json', import.meta.url), 'utf8'));

const PEOPLE = ['Priya Raman', 'Kaito Mori', 'Haruka Sato', 'Diego Alvarez', 'Yuki Tanaka', 'Lena Fischer', 'Ren Kobayashi', 'Olivia Brooks', 'Takeshi Ono'];
const firstName = { Priya: 'Priya Raman', Kaito: 'Kaito Mori', Haruka: 'Haruka Sato', Diego: 'Diego Alvarez', Yuki: 'Yuki Tanaka', Lena: 'Lena Fischer', Ren: 'Ren Kobayashi', Olivia: 'Olivia Brooks' };

/** A source for each of the first weeks' notes, from what the note is. */
function firstWeeksSource(m, i) {
  const c = m.content;
  const author = PEOPLE.find((p) => c.startsWith(p)) ?? Object.entries(firstName).find(([f]) => c.startsWith(f) || c.includes(`from ${f}`))?.[1];
  if (/^(Standup|Retro)/.test(c)) return { type: 'Meeting', id: c.startsWith('Retro') ? 'retro' : 'standup', name: c.startsWith('Retro') ? 'Weekly retro' : 'Daily standup' };
  if (/INC-0\d{3}/.test(c) && /(page|alert|commander|postmortem|Postmortem|timeline)/.test(c)) return { type: 'Incident', id: c.match(/INC-0\d{3}/)[0], name: 'incident channel' };
  const japanese = (c.match(/[\u3040-\u30ff\u4e00-\u9fff]/g) ?? []).length / c.length;
  if (japanese > 0.3 && /小野|さくら/.test(c)) return { type: 'Email', id: 'sakura-mart', name: 'Takeshi Ono' };
  return { type: 'Slack', id: i % 3 === 0 ? '#wallet-eng' : i % 3 === 1 ? '#wallet-product' : '#wallet-ops', name: author ?? 'Wallet Team' };
}

// Aliases of every entity the new notes name (the first weeks' own are declared by their notes).
const ALIASES = {
  'Priya Raman': ['Priya', 'プリヤ'], 'Kaito Mori': ['Kaito', '森 海斗', 'かいと'], 'Haruka Sato': ['Haruka', '佐藤 遥', 'はるか'],
  'Diego Alvarez': ['Diego', 'ディエゴ'], 'Yuki Tanaka': ['Yuki', '田中 由紀', 'ゆき'], 'Lena Fischer': ['Lena', 'レナ'],
  'Ren Kobayashi': ['Ren', '小林 蓮'], 'Olivia Brooks': ['Olivia', 'オリビア'], 'Takeshi Ono': ['Ono-san', '小野 武', '小野さん'],
  'Amara Okafor': ['Amara', 'アマラ', 'アマラ・オコラフォー'],
  'Settlement Reconciler': ['recon', 'reconciler', '精算照合'],
  'Merchant Portal': ['merchant-portal', '加盟店ポータル'],
  'Webhooks Relay': ['webhooks', 'Webhook中継'],
  'INC-0503 Payout Delay': ['INC-0503', 'payout delay', '振込遅延'],
  'INC-0518 Token Expiry Storm': ['INC-0518', 'token storm', 'トークン失効障害'],
  'Kobe Bakery': ['Kobe Bakery Co.', '神戸ベーカリー'],
  'Minato Taxi': ['港タクシー', 'みなとタクシー'],
  'Shirasagi ID': ['shirasagi', 'しらさぎID'],
  'HSM Migration': ['HSM移行', 'key rotation'],
  'December Freeze': ['code freeze', '年末フリーズ'],
  'RFC-012 Idempotency Keys': ['RFC-012', 'idempotency keys', '冪等キー'],
  'Release 3.5': ['3.5'], 'Release 3.6': ['3.6', 'リリース3.6'],
  'Sakura Mart': ['さくらマート'], 'Harbor Coffee': ['ハーバーコーヒー'],
  'Payouts Batch': ['出金バッチ'], 'Ledger Service': ['台帳サービス'], 'Payments Service': ['決済サービス'],
  'Auth Gateway': ['認証ゲートウェイ'], 'Notification Service': ['通知サービス'], 'QR Checkout': ['QR決済'],
  'Offline Mode': ['オフラインモード'], 'Fraud Scoring': ['不正検知'], 'Kestrel Pay': ['ケストレルペイ'],
  'Tip Screen': ['tips', 'チップ画面'], 'Wallet Team': ['ウォレットチーム'], 'Ledger DB': ['台帳DB'],
  'Sakura Mart Rollout': ['rollout', 'さくらマート展開'], 'Grafana': [], 'Sentry': [], 'CI Pipeline': ['CI'], 'Flagpole': ['feature flags'],
  'PCI Audit': ['PCI'], 'Android App': ['Android'], 'iOS App': ['iOS'], 'Tsubame Wallet': ['つばめウォレット'],
};

const notes = [];
/** One note: when (JST is written as UTC here), where from, text, entities, relations, key. */
function n(when, source, content, entities = [], relations = [], key) {
  notes.push({ when, source, content, entities, relations, key });
}
const slack = (channel, name) => ({ type: 'Slack', id: channel, name });
const meet = (id, name) => ({ type: 'Meeting', id, name });
const jira = (id, name) => ({ type: 'Jira', id, name });
const mail = (name) => ({ type: 'Email', id: 'inbox', name });
const page = (id) => ({ type: 'Incident', id, name: 'incident channel' });
/** A relation; `from`, when it began to hold (ISO 8601), if not since always. */
const R = (s, p, o, from) => ({ subject: s, predicate: p, object: o, ...(from ? { valid_from: from } : {}) });

// ---- week 6: 2–6 Nov — Release 3.5 hardening, rollout plan
n('2026-11-02T08:30', meet('standup', 'Daily standup'), 'Standup: Haruka is fixing the last Offline Mode sync bug on iOS; Diego has the Android build for Release 3.5 in internal testing; Kaito is writing RFC-012 Idempotency Keys after INC-0412.', ['Haruka Sato', 'Diego Alvarez', 'Kaito Mori', 'Offline Mode', 'Release 3.5', 'RFC-012 Idempotency Keys'], [R('Kaito Mori', 'authored', 'RFC-012 Idempotency Keys')]);
n('2026-11-02T11:15', slack('#wallet-eng', 'Kaito Mori'), 'RFC-012 draft is up: every write to the Payments Service carries an idempotency key, stored for 24 hours in the Ledger DB, so a retried request can never post twice.', ['Kaito Mori', 'RFC-012 Idempotency Keys', 'Payments Service', 'Ledger DB'], [R('RFC-012 Idempotency Keys', 'changes', 'Payments Service'), R('RFC-012 Idempotency Keys', 'uses', 'Ledger DB')], 'rfc012');
n('2026-11-02T15:40', slack('#wallet-eng', 'Yuki Tanaka'), 'Yuki on RFC-012: 24 hours of keys is about 9 million rows at pilot volume; fine for the Ledger DB, but put them in their own table with a TTL job.', ['Yuki Tanaka', 'RFC-012 Idempotency Keys', 'Ledger DB'], [R('@rfc012y', 'qualifies', '@rfc012')], 'rfc012y');
n('2026-11-03T09:00', slack('#wallet-product', 'Lena Fischer'), 'Lena shared the Sakura Mart Rollout plan: wave 1 Kanagawa (40 stores) from 9 Nov, wave 2 Tokyo (50 stores) from 16 Nov, wave 3 Saitama (30 stores) from 23 Nov.', ['Lena Fischer', 'Sakura Mart Rollout', 'Sakura Mart'], [R('Lena Fischer', 'owns', 'Sakura Mart Rollout'), R('Sakura Mart Rollout', 'for_customer', 'Sakura Mart')], 'plan');
n('2026-11-03T10:30', mail('Takeshi Ono'), '小野さん：第1週の神奈川40店舗、店長向け説明会を11月6日に実施します。QR決済の操作マニュアルを事前に送ってください。', ['Takeshi Ono', 'Sakura Mart', 'QR Checkout', 'Sakura Mart Rollout'], [R('Takeshi Ono', 'coordinates', 'Sakura Mart Rollout')]);
n('2026-11-03T14:00', slack('#wallet-eng', 'Diego Alvarez'), 'Diego: Android Offline Mode now queues up to 20 payments and replays them in order when the network returns; queue survives an app restart.', ['Diego Alvarez', 'Android App', 'Offline Mode'], [R('Diego Alvarez', 'implements', 'Offline Mode')]);
n('2026-11-03T17:20', jira('WAL-311', 'Haruka Sato'), 'WAL-311 fixed: iOS Offline Mode dropped the last queued payment when the app was killed during replay. Haruka moved the queue to a write-ahead file.', ['Haruka Sato', 'iOS App', 'Offline Mode'], [R('Haruka Sato', 'implements', 'Offline Mode')]);
n('2026-11-04T08:30', meet('standup', 'Daily standup'), 'Standup: Release 3.5 code complete. Ren starts regression on both apps; Olivia wants the Tip Screen behind a Flagpole flag so Harbor Coffee can opt in.', ['Release 3.5', 'Ren Kobayashi', 'Olivia Brooks', 'Tip Screen', 'Flagpole', 'Harbor Coffee'], [R('Tip Screen', 'part_of', 'Release 3.5'), R('Tip Screen', 'gated_by', 'Flagpole')]);
n('2026-11-04T12:10', slack('#wallet-qa', 'Ren Kobayashi'), 'Ren: regression pass 1 for Release 3.5 — 212 cases, 4 failures, all in Offline Mode replay on older Android phones with battery saver on.', ['Ren Kobayashi', 'Release 3.5', 'Offline Mode', 'Android App'], [R('Ren Kobayashi', 'tests', 'Release 3.5')], 'reg1');
n('2026-11-04T16:45', slack('#wallet-eng', 'Diego Alvarez'), 'Diego traced the battery-saver failures: Android defers the WorkManager job that replays Offline Mode payments. Switching to an expedited job.', ['Diego Alvarez', 'Offline Mode', 'Android App'], [R('@bsaver', 'supports', '@reg1')], 'bsaver');
n('2026-11-05T09:30', slack('#wallet-product', 'Priya Raman'), 'Priya posted the job ad for a second backend engineer; Kaito and Yuki will interview. Target start mid-November so Kaito can hand over the Payouts Batch.', ['Priya Raman', 'Kaito Mori', 'Yuki Tanaka', 'Payouts Batch'], []);
n('2026-11-05T13:00', slack('#wallet-qa', 'Ren Kobayashi'), 'Ren: regression pass 2 — 212 cases, 0 failures. Release 3.5 is green on iOS 17–18 and Android 11–15.', ['Ren Kobayashi', 'Release 3.5'], [], 'reg2');
n('2026-11-05T13:05', slack('#wallet-qa', 'Ren Kobayashi'), 'Note: pass 2 supersedes the pass 1 failure list; the battery-saver fix is verified on a Pixel 6 and a Galaxy A14.', ['Ren Kobayashi', 'Release 3.5', 'Offline Mode'], [R('@reg2', 'supersedes', '@reg1')]);
n('2026-11-05T18:00', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki added a Grafana panel for the Sakura Mart Rollout: payments per store per hour, split by QR Checkout and card.', ['Yuki Tanaka', 'Grafana', 'Sakura Mart Rollout', 'QR Checkout'], [R('Grafana', 'monitors', 'Sakura Mart Rollout')]);
n('2026-11-06T10:00', meet('sakura-training', 'Store manager briefing'), '神奈川の店長向け説明会。質問が多かったのは返金の手順とオフライン時の動作。レナが返金フロー、はるかがオフラインモードを説明した。', ['Sakura Mart', 'Lena Fischer', 'Haruka Sato', 'Offline Mode', 'Refund Flow v2'], []);
n('2026-11-06T15:30', meet('retro', 'Weekly retro'), 'Retro, week 6: good — Release 3.5 green a week early. Improve — RFC-012 needs a decision before the Tokyo wave; Priya sets the review for 10 Nov.', ['Release 3.5', 'RFC-012 Idempotency Keys', 'Priya Raman'], []);

// ---- week 7: 9–13 Nov — wave 1, Release 3.5
n('2026-11-09T07:00', page('rollout'), 'Sakura Mart Rollout wave 1 live: 40 Kanagawa stores switched on at 07:00 JST. First QR Checkout payment at 07:04 in Yokohama Kannai.', ['Sakura Mart Rollout', 'Sakura Mart', 'QR Checkout'], [], 'wave1');
n('2026-11-09T12:30', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki: wave 1 noon numbers — 3,120 payments, error rate 0.3%, p95 latency 640 ms. Most errors are customers scanning an expired QR.', ['Yuki Tanaka', 'Sakura Mart Rollout', 'QR Checkout'], []);
n('2026-11-09T16:00', mail('Takeshi Ono'), '小野さんより：神奈川の初日は大きな問題なし。ただ2店舗でレシートプリンタとの連携が遅いとの報告。', ['Takeshi Ono', 'Sakura Mart', 'Sakura Mart Rollout'], []);
n('2026-11-10T10:00', meet('rfc-review', 'RFC review'), 'RFC-012 review: accepted with Yuki\'s TTL table. Kaito implements it in the Payments Service; Amara, if hired in time, takes the Ledger side.', ['RFC-012 Idempotency Keys', 'Kaito Mori', 'Payments Service', 'Yuki Tanaka'], [R('Kaito Mori', 'implements', 'RFC-012 Idempotency Keys')], 'rfcok');
n('2026-11-10T10:05', slack('#wallet-eng', 'Priya Raman'), 'Decision log: RFC-012 accepted on 10 Nov; the Yuki TTL amendment is part of it.', ['Priya Raman', 'RFC-012 Idempotency Keys'], [R('@rfcok', 'supports', '@rfc012'), R('@rfcok', 'supports', '@rfc012y')]);
n('2026-11-10T14:20', slack('#wallet-eng', 'Diego Alvarez'), 'Diego: the slow receipts are the Sakura Mart printers waiting on our webhook; the Notification Service retries with a 5 s backoff. We need a proper Webhooks Relay.', ['Diego Alvarez', 'Sakura Mart', 'Notification Service', 'Webhooks Relay'], [R('Webhooks Relay', 'replaces_part_of', 'Notification Service')], 'relay');
n('2026-11-11T09:00', slack('#wallet-eng', 'Kaito Mori'), 'Kaito sketched the Webhooks Relay: a small queue in front of merchant endpoints, per-merchant concurrency, retries at 1 s, 5 s, 30 s, then a dead letter.', ['Kaito Mori', 'Webhooks Relay'], [R('Kaito Mori', 'designs', 'Webhooks Relay')]);
n('2026-11-11T17:30', slack('#wallet-product', 'Lena Fischer'), 'Lena: wave 1 week summary so far — 40/40 stores active, 9.8k payments, refunds 0.4%. Store staff like the QR flow; two asked for tips, which is a café thing, not a supermarket one.', ['Lena Fischer', 'Sakura Mart Rollout', 'Sakura Mart', 'Tip Screen'], []);
n('2026-11-12T06:00', slack('#wallet-release', 'Ren Kobayashi'), 'Release 3.5 submitted Sunday night, approved on both stores at 05:40 JST. Phased rollout 10% on Android, 100% on iOS with the Tip Screen flag off.', ['Ren Kobayashi', 'Release 3.5', 'iOS App', 'Android App', 'Tip Screen'], [R('Release 3.5', 'includes', 'Offline Mode'), R('Release 3.5', 'includes', 'Tip Screen')], 'r35');
n('2026-11-12T11:00', slack('#wallet-product', 'Olivia Brooks'), 'Olivia turned the Tip Screen flag on for all 6 Harbor Coffee cafés. Baristas were told about it this morning.', ['Olivia Brooks', 'Tip Screen', 'Harbor Coffee', 'Flagpole'], [R('Harbor Coffee', 'pilots', 'Tip Screen')]);
n('2026-11-12T19:10', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki: Release 3.5 crash-free sessions 99.82% on iOS, 99.71% on Android (10%). Sentry shows one new crash in the Offline Mode banner on iPad.', ['Yuki Tanaka', 'Release 3.5', 'Sentry', 'Offline Mode', 'iOS App'], []);
n('2026-11-13T09:30', jira('WAL-329', 'Haruka Sato'), 'WAL-329: the iPad crash is a layout constraint in the Offline Mode banner in split view. Haruka has a fix for 3.5.1.', ['Haruka Sato', 'iOS App', 'Offline Mode'], []);
n('2026-11-13T14:00', slack('#wallet-product', 'Priya Raman'), 'Priya: offer accepted — Amara Okafor joins on 16 Nov as our second backend engineer. She comes from a card acquirer, so settlement is home ground.', ['Priya Raman', 'Amara Okafor', 'Wallet Team'], [R('Amara Okafor', 'member_of', 'Wallet Team'), R('Amara Okafor', 'reports_to', 'Priya Raman')], 'hire');
n('2026-11-13T16:00', meet('retro', 'Weekly retro'), 'Retro, week 7: good — wave 1 smooth, Release 3.5 out. Improve — the receipt webhook delay is ours; Webhooks Relay goes on the board for Release 3.6.', ['Sakura Mart Rollout', 'Release 3.5', 'Webhooks Relay', 'Release 3.6'], [R('Release 3.6', 'includes', 'Webhooks Relay')]);

// ---- week 8: 16–20 Nov — wave 2, Amara, INC-0503
n('2026-11-16T07:00', page('rollout'), 'Wave 2 of the Sakura Mart Rollout: 50 Tokyo stores live. Peak at 12:10 with 41 payments per second across all stores.', ['Sakura Mart Rollout', 'Sakura Mart'], [], 'wave2');
n('2026-11-16T09:00', slack('#wallet-eng', 'Kaito Mori'), 'Welcome Amara! Onboarding plan: week 1 reads the Ledger Service and the Payouts Batch, pairs with Kaito; week 2 she owns the Payouts Batch on-call.', ['Kaito Mori', 'Amara Okafor', 'Ledger Service', 'Payouts Batch'], [R('Amara Okafor', 'onboards_with', 'Kaito Mori')]);
n('2026-11-16T13:00', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki: wave 2 error rate 0.5% — higher than Kanagawa. The Auth Gateway rejects 1 in 300 token refreshes from the oldest POS tablets (clock skew).', ['Yuki Tanaka', 'Sakura Mart Rollout', 'Auth Gateway'], [], 'skew');
n('2026-11-16T17:45', slack('#wallet-eng', 'Kaito Mori'), 'Kaito widened the Auth Gateway clock-skew tolerance from 30 s to 120 s for POS clients only. Error rate back to 0.3%.', ['Kaito Mori', 'Auth Gateway'], [R('@skewfix', 'supports', '@skew')], 'skewfix');
n('2026-11-17T10:00', slack('#wallet-eng', 'Amara Okafor'), 'Amara: first read of the Payouts Batch. It sums settled postings per merchant, but fees from Kestrel Pay arrive a day later and are netted the next night. That will confuse merchants.', ['Amara Okafor', 'Payouts Batch', 'Kestrel Pay'], [], 'fees');
n('2026-11-17T15:20', slack('#wallet-eng', 'Amara Okafor'), 'Amara proposes a Settlement Reconciler: match our Ledger Service postings with Kestrel Pay settlement files each morning and flag every difference before payouts run.', ['Amara Okafor', 'Settlement Reconciler', 'Ledger Service', 'Kestrel Pay', 'Payouts Batch'], [R('Amara Okafor', 'designs', 'Settlement Reconciler'), R('Settlement Reconciler', 'reads', 'Ledger Service'), R('Settlement Reconciler', 'feeds', 'Payouts Batch')], 'recon');
n('2026-11-18T09:00', meet('standup', 'Daily standup'), 'Standup: Diego pushes Release 3.5 Android to 50%. Haruka ships 3.5.1 with the iPad fix. Lena asks for a Merchant Portal so store managers can see their own payouts.', ['Diego Alvarez', 'Haruka Sato', 'Lena Fischer', 'Release 3.5', 'Merchant Portal'], [R('Lena Fischer', 'requested', 'Merchant Portal')], 'portalask');
n('2026-11-18T14:30', slack('#wallet-product', 'Lena Fischer'), 'Lena wrote the Merchant Portal brief: read-only v1 — daily payouts, refunds and fees per store, CSV export. Sakura Mart and Harbor Coffee first.', ['Lena Fischer', 'Merchant Portal', 'Sakura Mart', 'Harbor Coffee'], [R('Lena Fischer', 'owns', 'Merchant Portal'), R('Merchant Portal', 'for_customer', 'Sakura Mart')]);
n('2026-11-19T11:00', slack('#wallet-eng', 'Haruka Sato'), 'Haruka volunteers for the Merchant Portal front end; it will be a web app on the Auth Gateway with merchant roles.', ['Haruka Sato', 'Merchant Portal', 'Auth Gateway'], [R('Haruka Sato', 'builds', 'Merchant Portal'), R('Merchant Portal', 'depends_on', 'Auth Gateway')]);
n('2026-11-20T01:40', page('INC-0503'), 'Page: INC-0503 Payout Delay. The Payouts Batch stopped at 01:22 on a Kestrel Pay settlement file with 3 duplicate lines. Yuki is incident commander; Amara and Kaito are on.', ['INC-0503 Payout Delay', 'Payouts Batch', 'Kestrel Pay', 'Yuki Tanaka', 'Amara Okafor', 'Kaito Mori'], [R('Yuki Tanaka', 'incident_commander_of', 'INC-0503 Payout Delay'), R('INC-0503 Payout Delay', 'caused_by', 'Payouts Batch'), R('INC-0503 Payout Delay', 'affects', 'Sakura Mart')], 'inc503');
n('2026-11-20T04:10', page('INC-0503'), 'INC-0503: Amara deduplicated the file by transaction id and re-ran the Payouts Batch from the failed merchant onwards. All 1,240 payouts sent by 04:05, about 3 hours late.', ['INC-0503 Payout Delay', 'Amara Okafor', 'Payouts Batch'], [R('Amara Okafor', 'resolved', 'INC-0503 Payout Delay')], 'inc503b');
n('2026-11-20T10:00', mail('Takeshi Ono'), '小野さん：今朝の入金が遅れた件、店舗から問い合わせが12件。原因と再発防止策を文書でいただけますか。', ['Takeshi Ono', 'Sakura Mart', 'INC-0503 Payout Delay'], [R('INC-0503 Payout Delay', 'affects', 'Sakura Mart')]);
n('2026-11-20T15:00', slack('#wallet-eng', 'Yuki Tanaka'), 'INC-0503 postmortem: root cause is Kestrel Pay sending duplicates on a retry; we trusted the file. Action items: the Settlement Reconciler checks every file before payouts; Kestrel Pay to fix their retry.', ['Yuki Tanaka', 'INC-0503 Payout Delay', 'Kestrel Pay', 'Settlement Reconciler'], [R('INC-0503 Payout Delay', 'caused_by', 'Kestrel Pay'), R('Settlement Reconciler', 'prevents', 'INC-0503 Payout Delay')], 'pm503');
n('2026-11-20T15:05', slack('#wallet-eng', 'Yuki Tanaka'), 'Correction to the 01:40 page: the batch stopped on duplicate lines sent by Kestrel Pay, not on a bug in the Payouts Batch itself.', ['Yuki Tanaka', 'INC-0503 Payout Delay', 'Payouts Batch', 'Kestrel Pay'], [R('@pm503', 'corrects', '@inc503')]);
n('2026-11-20T16:30', meet('retro', 'Weekly retro'), 'Retro, week 8: good — Amara fixed INC-0503 in her first week. Improve — payouts must not depend on a vendor file being perfect; the Settlement Reconciler moves up to Release 3.6.', ['Amara Okafor', 'INC-0503 Payout Delay', 'Settlement Reconciler', 'Release 3.6'], [R('Release 3.6', 'includes', 'Settlement Reconciler')]);

// ---- week 9: 23–27 Nov — wave 3, reconciler, portal
n('2026-11-23T07:00', page('rollout'), 'Wave 3: 30 Saitama stores live. All 120 Sakura Mart stores now take QR Checkout. 小野さん sent a thank-you note to the team.', ['Sakura Mart Rollout', 'Sakura Mart', 'QR Checkout', 'Takeshi Ono'], [], 'wave3');
n('2026-11-23T10:00', slack('#wallet-eng', 'Amara Okafor'), 'Amara started the Settlement Reconciler: a nightly job at 00:30, before the Payouts Batch at 01:00, writing mismatches to a table the Merchant Portal can show.', ['Amara Okafor', 'Settlement Reconciler', 'Payouts Batch', 'Merchant Portal'], [R('Amara Okafor', 'maintains', 'Settlement Reconciler'), R('Merchant Portal', 'shows', 'Settlement Reconciler')]);
n('2026-11-24T09:30', slack('#wallet-eng', 'Kaito Mori'), 'Handover: Amara owns the Payouts Batch from today, on-call included. Kaito stays second line until the December Freeze.', ['Kaito Mori', 'Amara Okafor', 'Payouts Batch', 'December Freeze'], [R('Amara Okafor', 'maintains', 'Payouts Batch')], 'handover');
n('2026-11-24T14:00', slack('#wallet-eng', 'Kaito Mori'), 'RFC-012 is live in the Payments Service behind a flag: idempotency keys on create-payment and refund. 0 duplicate postings since Friday.', ['Kaito Mori', 'RFC-012 Idempotency Keys', 'Payments Service', 'Flagpole'], [R('RFC-012 Idempotency Keys', 'prevents', 'INC-0412 Double Charge')]);
n('2026-11-25T11:00', slack('#wallet-product', 'Lena Fischer'), 'Lena: Kobe Bakery (14 shops) wants QR Checkout and the Tip Screen in January. Contact is their ops lead, Mei Nakamura.', ['Lena Fischer', 'Kobe Bakery', 'QR Checkout', 'Tip Screen', 'Mei Nakamura'], [R('Mei Nakamura', 'works_at', 'Kobe Bakery'), R('Kobe Bakery', 'prospect_for', 'QR Checkout')]);
n('2026-11-25T16:20', slack('#wallet-eng', 'Diego Alvarez'), 'Diego: Release 3.5 at 100% on Android. Offline Mode replayed 4,300 payments this week, 2 failed and were refunded automatically.', ['Diego Alvarez', 'Release 3.5', 'Offline Mode', 'Android App'], []);
n('2026-11-26T10:00', slack('#wallet-eng', 'Haruka Sato'), 'Haruka demoed the Merchant Portal: login through the Auth Gateway, a payouts table per store, CSV export. Lena wants refunds on the same page.', ['Haruka Sato', 'Merchant Portal', 'Auth Gateway', 'Lena Fischer'], []);
n('2026-11-26T15:00', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki: a Shirasagi ID contract is signed for merchant KYC in the Merchant Portal sign-up. Sandbox keys are in the vault.', ['Yuki Tanaka', 'Shirasagi ID', 'Merchant Portal'], [R('Merchant Portal', 'uses', 'Shirasagi ID')]);
n('2026-11-27T09:00', slack('#wallet-eng', 'Amara Okafor'), 'Settlement Reconciler dry run on last week\'s files: 14 mismatches, 11 are Kestrel Pay fee lines arriving a day late, 3 are refunds booked across midnight.', ['Amara Okafor', 'Settlement Reconciler', 'Kestrel Pay'], [], 'dry');
n('2026-11-27T09:05', slack('#wallet-eng', 'Amara Okafor'), 'This dry run supports the 17 Nov note on late fees: the delay is systematic, one day, every day.', ['Amara Okafor', 'Kestrel Pay', 'Payouts Batch'], [R('@dry', 'supports', '@fees')]);
n('2026-11-27T16:00', meet('retro', 'Weekly retro'), 'Retro, week 9: good — the Sakura Mart Rollout is complete (120 stores). Improve — the Merchant Portal scope grows daily; Priya freezes v1 scope today.', ['Sakura Mart Rollout', 'Merchant Portal', 'Priya Raman'], [R('Priya Raman', 'scoped', 'Merchant Portal')]);

// ---- week 10: 30 Nov – 4 Dec — INC-0518, HSM, freeze
n('2026-11-30T10:00', slack('#wallet-eng', 'Kaito Mori'), 'Handover: Amara maintains the Ledger Service from 1 Dec, next to the Payouts Batch and the Settlement Reconciler that read it. Kaito keeps the Payments Service and the Auth Gateway.', ['Kaito Mori', 'Amara Okafor', 'Ledger Service', 'Payouts Batch', 'Settlement Reconciler', 'Payments Service', 'Auth Gateway'], [R('Amara Okafor', 'maintains', 'Ledger Service', '2026-12-01T00:00:00Z')], 'ledgerhandover');
n('2026-11-30T09:00', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki: the HSM Migration starts — card keys move from the old HSM to the cloud KMS, a PCI Audit follow-up. Kaito reviews the key-ceremony script.', ['Yuki Tanaka', 'HSM Migration', 'PCI Audit', 'Kaito Mori'], [R('Yuki Tanaka', 'owns', 'HSM Migration'), R('HSM Migration', 'follows_up', 'PCI Audit')]);
n('2026-12-01T08:15', page('INC-0518'), 'Page: INC-0518 Token Expiry Storm. At 08:02 every mobile session refreshed at once and the Auth Gateway hit its rate limit; logins fail for about 20% of users.', ['INC-0518 Token Expiry Storm', 'Auth Gateway', 'iOS App', 'Android App'], [R('INC-0518 Token Expiry Storm', 'affects', 'Auth Gateway')], 'inc518');
n('2026-12-01T08:30', page('INC-0518'), 'INC-0518: Kaito is incident commander. The signing key rotated by the HSM Migration rehearsal at 08:00 invalidated all tokens at once.', ['INC-0518 Token Expiry Storm', 'Kaito Mori', 'HSM Migration'], [R('Kaito Mori', 'incident_commander_of', 'INC-0518 Token Expiry Storm'), R('INC-0518 Token Expiry Storm', 'caused_by', 'HSM Migration')], 'inc518b');
n('2026-12-01T09:20', page('INC-0518'), 'INC-0518 mitigated at 09:12: the Auth Gateway accepts the previous key for 24 hours again and the rate limit is doubled. Logins normal.', ['INC-0518 Token Expiry Storm', 'Auth Gateway'], []);
n('2026-12-01T13:00', mail('Olivia Brooks'), 'Olivia: two Harbor Coffee cafés could not take wallet payments this morning between 8 and 9. Was it us?', ['Olivia Brooks', 'Harbor Coffee', 'INC-0518 Token Expiry Storm'], [R('INC-0518 Token Expiry Storm', 'affects', 'Harbor Coffee')]);
n('2026-12-01T17:00', slack('#wallet-eng', 'Kaito Mori'), 'INC-0518 postmortem: keys must rotate with overlap, never as a cut. Action items: the HSM Migration runbook keeps two keys live for 24 h; Auth Gateway refreshes get jitter.', ['Kaito Mori', 'INC-0518 Token Expiry Storm', 'HSM Migration', 'Auth Gateway'], [R('HSM Migration', 'changes', 'Auth Gateway')], 'pm518');
n('2026-12-01T17:10', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki disagrees with one line of the postmortem: the rehearsal was announced; the gap is that the Auth Gateway had no alert on refresh rate.', ['Yuki Tanaka', 'INC-0518 Token Expiry Storm', 'Auth Gateway', 'Grafana'], [R('@yuki518', 'contradicts', '@pm518')], 'yuki518');
n('2026-12-02T10:00', slack('#wallet-ops', 'Yuki Tanaka'), 'Grafana alert added: Auth Gateway token refreshes per second above 3× the weekly median pages the on-call.', ['Yuki Tanaka', 'Grafana', 'Auth Gateway'], [R('Grafana', 'monitors', 'Auth Gateway')]);
n('2026-12-02T14:00', slack('#wallet-product', 'Priya Raman'), 'Priya: the December Freeze runs 14 Dec – 5 Jan. Release 3.6 must be in the stores by 10 Dec; only fixes after that.', ['Priya Raman', 'December Freeze', 'Release 3.6'], [R('December Freeze', 'follows', 'Release 3.6')], 'freeze');
n('2026-12-03T09:00', meet('standup', 'Daily standup'), 'Standup: Release 3.6 scope locked — Merchant Portal v1, Settlement Reconciler, Webhooks Relay, Tip Screen for all merchants. Ren starts the regression plan.', ['Release 3.6', 'Merchant Portal', 'Settlement Reconciler', 'Webhooks Relay', 'Tip Screen', 'Ren Kobayashi'], [R('Release 3.6', 'includes', 'Merchant Portal'), R('Ren Kobayashi', 'tests', 'Release 3.6')]);
n('2026-12-03T15:30', slack('#wallet-eng', 'Kaito Mori'), 'Kaito: Webhooks Relay in staging. Sakura Mart receipt printers now get the webhook in 180 ms p95, down from 5.2 s.', ['Kaito Mori', 'Webhooks Relay', 'Sakura Mart'], [R('Kaito Mori', 'maintains', 'Webhooks Relay')], 'relaystaging');
n('2026-12-03T15:35', slack('#wallet-eng', 'Kaito Mori'), 'This staging result supports Diego\'s 10 Nov diagnosis: the receipt delay was the Notification Service backoff.', ['Kaito Mori', 'Diego Alvarez', 'Notification Service'], [R('@relaystaging', 'supports', '@relay')]);
n('2026-12-04T11:00', slack('#wallet-eng', 'Amara Okafor'), 'Settlement Reconciler in production, report-only. Tonight it flagged 2 fee lines; payouts went out unchanged. Amara will make it blocking after a week.', ['Amara Okafor', 'Settlement Reconciler', 'Payouts Batch'], [], 'reconprod');
n('2026-12-04T16:00', meet('retro', 'Weekly retro'), 'Retro, week 10: good — INC-0518 mitigated in 70 minutes. Improve — rehearsals touch production keys; the HSM Migration moves to after the December Freeze.', ['INC-0518 Token Expiry Storm', 'HSM Migration', 'December Freeze'], [R('HSM Migration', 'delayed_by', 'December Freeze')]);

// ---- week 11: 7–11 Dec — Release 3.6
n('2026-12-07T09:00', slack('#wallet-qa', 'Ren Kobayashi'), 'Ren: Release 3.6 regression pass 1 — 248 cases, 6 failures: 4 in Merchant Portal CSV export (Japanese store names garbled in Excel), 2 in Tip Screen rounding.', ['Ren Kobayashi', 'Release 3.6', 'Merchant Portal', 'Tip Screen'], [], 'reg36');
n('2026-12-07T13:00', jira('WAL-402', 'Haruka Sato'), 'WAL-402: the CSV export now writes UTF-8 with a BOM so Excel opens 横浜関内店 correctly. Haruka added a test with every Sakura Mart store name.', ['Haruka Sato', 'Merchant Portal', 'Sakura Mart'], []);
n('2026-12-07T16:40', jira('WAL-405', 'Diego Alvarez'), 'WAL-405: Tip Screen rounded ¥1,005 × 10% to ¥100 instead of ¥101 on Android. Diego switched to the same half-up rule as iOS.', ['Diego Alvarez', 'Tip Screen', 'Android App'], []);
n('2026-12-08T10:00', slack('#wallet-qa', 'Ren Kobayashi'), 'Ren: pass 2 for Release 3.6 — 248 cases, 0 failures. Ready to submit.', ['Ren Kobayashi', 'Release 3.6'], [R('@reg36b', 'supersedes', '@reg36')], 'reg36b');
n('2026-12-08T15:00', mail('Takeshi Ono'), '小野さん：加盟店ポータルのデモを見ました。店舗ごとの入金が見えるのは助かります。年明けに全店長へ案内したい。', ['Takeshi Ono', 'Merchant Portal', 'Sakura Mart'], []);
n('2026-12-09T09:30', slack('#wallet-eng', 'Amara Okafor'), 'Amara: after 5 clean nights the Settlement Reconciler is blocking — a mismatch above ¥10,000 holds that merchant\'s payout and pages the on-call.', ['Amara Okafor', 'Settlement Reconciler', 'Payouts Batch'], [R('@blocking', 'supersedes', '@reconprod')], 'blocking');
n('2026-12-10T06:10', slack('#wallet-release', 'Ren Kobayashi'), 'Release 3.6 approved on both stores. Merchant Portal opens to Sakura Mart and Harbor Coffee managers today; Webhooks Relay takes all receipt traffic.', ['Ren Kobayashi', 'Release 3.6', 'Merchant Portal', 'Webhooks Relay', 'Sakura Mart', 'Harbor Coffee'], [], 'r36');
n('2026-12-10T18:00', slack('#wallet-ops', 'Yuki Tanaka'), 'Yuki: Release 3.6 day one — crash-free 99.86%, portal logins 212, relay p95 170 ms, no pages.', ['Yuki Tanaka', 'Release 3.6', 'Merchant Portal', 'Webhooks Relay'], []);
n('2026-12-11T15:00', meet('retro', 'Weekly retro'), 'Retro, week 11 and the quarter: 120 Sakura Mart stores live, two releases, two incidents closed. Next quarter: Kobe Bakery, the HSM Migration, and Merchant Portal v2 with refunds.', ['Sakura Mart', 'Release 3.6', 'Kobe Bakery', 'HSM Migration', 'Merchant Portal'], []);
n('2026-12-11T16:30', slack('#wallet-product', 'Priya Raman'), 'Priya\'s quarter summary to leadership: the Wallet Team grew to seven, payments volume ×6 since September, and the Settlement Reconciler has caught ¥1.2M of fee differences before payout.', ['Priya Raman', 'Wallet Team', 'Settlement Reconciler'], []);

/**
 * Relations that ended, each closed by the agent when its clock reaches `closed` (the note
 * that said so), as of `at`, with the reason the agent gave.
 */
const ENDED = [
  { closed: '2026-10-13T11:00:00Z', at: '2026-10-13T11:00:00Z', subject: 'Kaito Mori', predicate: 'maintains', object: 'Fraud Scoring', reason: 'Ownership moved to Yuki Tanaka on 13 Oct, so Kaito can focus on the Ledger Service and Refund Flow v2.' },
  { closed: '2026-11-30T10:00:00Z', at: '2026-12-01T00:00:00Z', subject: 'Kaito Mori', predicate: 'maintains', object: 'Ledger Service', reason: 'Handed over to Amara Okafor from 1 Dec (handover note of 30 Nov).' },
];

// ---- the team's recurring notes: on-call handoffs, standups, deploys and reviews, every working day
const ONCALL = ['Yuki Tanaka', 'Kaito Mori', 'Diego Alvarez', 'Amara Okafor', 'Haruka Sato'];
const SERVICES = ['Payments Service', 'Ledger Service', 'Auth Gateway', 'Notification Service', 'Payouts Batch', 'Webhooks Relay', 'Settlement Reconciler', 'Merchant Portal', 'Fraud Scoring'];
const OWNER = { 'Payments Service': 'Kaito Mori', 'Ledger Service': 'Kaito Mori', 'Auth Gateway': 'Kaito Mori', 'Notification Service': 'Diego Alvarez', 'Payouts Batch': 'Amara Okafor', 'Webhooks Relay': 'Kaito Mori', 'Settlement Reconciler': 'Amara Okafor', 'Merchant Portal': 'Haruka Sato', 'Fraud Scoring': 'Yuki Tanaka' };
const QUIET = ['a quiet week', 'two low-urgency pages, both disk alerts', 'one page: a Kestrel Pay webhook timeout that recovered by itself', 'no pages; one Sentry spike from a bad Wi-Fi at a Tokyo store', 'one page at 03:10, the Ledger DB replica lagging for 4 minutes'];
const DEPLOY_WHAT = ['a logging change', 'a dependency bump', 'a faster health check', 'a config change for the rollout', 'two small fixes', 'a new metric', 'a retry tweak'];
const REVIEW_OF = { 'Payments Service': 'idempotency middleware', 'Ledger Service': 'posting validation', 'Auth Gateway': 'refresh jitter', 'Notification Service': 'template cleanup', 'Payouts Batch': 'restartable runs', 'Webhooks Relay': 'dead-letter queue', 'Settlement Reconciler': 'fee matching', 'Merchant Portal': 'payout table', 'Fraud Scoring': 'threshold tuning' };
const JP = ['本番デプロイ完了。', 'デプロイしました。問題なし。', '本番反映済み、監視中。'];
let seq = 0;
for (let day = Date.parse('2026-11-02T00:00:00Z'); day <= Date.parse('2026-12-11T00:00:00Z'); day += 86_400_000) {
  const d = new Date(day);
  const dow = d.getUTCDay();
  if (dow === 0 || dow === 6) continue;
  const date = d.toISOString().slice(0, 10);
  const week = Math.floor((day - Date.parse('2026-11-02T00:00:00Z')) / (7 * 86_400_000));
  seq += 1;
  const available = day >= Date.parse('2026-11-24T00:00:00Z') ? SERVICES : SERVICES.filter((s) => !['Settlement Reconciler', 'Merchant Portal', 'Webhooks Relay'].includes(s));
  const svc = available[(seq * 5) % available.length];
  const owner = OWNER[svc] === 'Amara Okafor' && day < Date.parse('2026-11-24T00:00:00Z') ? 'Kaito Mori'
    : svc === 'Ledger Service' && day >= Date.parse('2026-12-01T00:00:00Z') ? 'Amara Okafor' : OWNER[svc];
  const reviewer = PEOPLE.slice(1, 6).concat(day >= Date.parse('2026-11-16T00:00:00Z') ? ['Amara Okafor'] : []).filter((p) => p !== owner)[seq % 4];
  if (dow === 1) {
    const from = ONCALL[(week + 4) % (day >= Date.parse('2026-11-30T00:00:00Z') ? 5 : 4)];
    const to = ONCALL[week % (day >= Date.parse('2026-11-30T00:00:00Z') ? 5 : 4)];
    n(`${date}T09:45`, slack('#wallet-ops', from), `On-call handoff ${date}: ${from.split(' ')[0]} → ${to.split(' ')[0]}. Last week: ${QUIET[week % QUIET.length]}.`, [from, to], [R(to, 'on_call_for', 'Wallet Team')]);
  }
  if (dow === 2 || dow === 4) {
    const jp = seq % 3 === 0;
    n(`${date}T${dow === 2 ? '14:20' : '11:05'}`, slack('#wallet-deploys', owner),
      jp ? `${svc} ${DEPLOY_WHAT[seq % DEPLOY_WHAT.length]}（${owner.split(' ')[0]}）— ${JP[seq % JP.length]}` : `Deploy: ${svc}, ${DEPLOY_WHAT[seq % DEPLOY_WHAT.length]}, by ${owner.split(' ')[0]}. CI Pipeline green in ${9 + (seq % 7)} min.`,
      [svc, owner, 'CI Pipeline'], [R('CI Pipeline', 'deploys', svc)]);
  }
  if (dow === 3 || dow === 5) {
    n(`${date}T${dow === 3 ? '16:10' : '13:30'}`, jira(`WAL-${300 + seq * 2}`, reviewer), `Code review: ${reviewer.split(' ')[0]} approved ${owner.split(' ')[0]}'s change to the ${svc} (${REVIEW_OF[svc]}) with ${seq % 4} comments.`,
      [reviewer, owner, svc], [R(reviewer, 'reviews', svc)]);
  }
  {
    // The daily standup line of whoever spoke first, from what they were on that week.
    const FOCUS = [
      ['Haruka Sato', ['the Offline Mode banner', 'iOS release notes for 3.5', 'Merchant Portal login', 'Merchant Portal payouts table', 'the CSV export', 'Release 3.6 screenshots']],
      ['Diego Alvarez', ['the Offline Mode replay queue', 'Android phased rollout', 'Notification Service templates', 'Tip Screen on Android', 'Tip Screen rounding', 'Android 3.6 build']],
      ['Kaito Mori', ['RFC-012 Idempotency Keys', 'the Auth Gateway clock skew', 'pairing with Amara', 'Webhooks Relay', 'the INC-0518 action items', 'Webhooks Relay cut-over']],
      ['Yuki Tanaka', ['rollout dashboards', 'Grafana alerts for wave 2', 'the INC-0503 postmortem', 'Shirasagi ID sandbox', 'the HSM Migration runbook', 'freeze on-call rota']],
      ['Amara Okafor', ['reading the codebase', 'reading the codebase', 'the Payouts Batch restart logic', 'the Settlement Reconciler', 'Settlement Reconciler alerts', 'reconciler blocking mode']],
    ];
    const [who, by] = FOCUS[seq % FOCUS.length];
    if (!(who === 'Amara Okafor' && day < Date.parse('2026-11-16T00:00:00Z'))) {
      const topic = by[Math.min(week, by.length - 1)];
      const jp = seq % 7 === 3;
      n(`${date}T08:${40 + (seq % 15)}`, meet('standup', 'Daily standup'),
        jp ? `朝会（${who.split(' ')[0]}）：今日は${topic}。ブロッカーなし。` : `Standup (${who.split(' ')[0]}): today on ${topic}; ${seq % 3 ? 'no blockers' : 'needs a review from Kaito'}.`,
        [who], []);
    }
  }
  if (dow === 5) {
    const stores = [0, 40, 90, 120, 120, 120][week];
    n(`${date}T17:45`, slack('#wallet-metrics', 'Priya Raman'), `Weekly numbers (week ending ${date}): ${[61, 74, 118, 163, 171, 176][week]}k payments, ${stores} Sakura Mart stores live, Harbor Coffee tips ${[14, 17, 18, 19, 18, 19][week]}% of payments, refunds ${['0.6', '0.5', '0.4', '0.4', '0.5', '0.4'][week]}%.`,
      ['Priya Raman', 'Sakura Mart', 'Harbor Coffee', 'Tsubame Wallet'], []);
  }
  if (dow === 1) {
    const goal = ['Release 3.5 regression and the rollout dry run', 'Sakura Mart wave 1 and Release 3.5', 'wave 2, Amara\'s onboarding', 'wave 3, the Settlement Reconciler, Merchant Portal v1', 'INC-0518 follow-ups and the Release 3.6 scope', 'Release 3.6 in the stores before the December Freeze'][week];
    n(`${date}T10:30`, meet('planning', 'Weekly planning'), `Planning, week of ${date}: ${goal}.`, ['Wallet Team', 'Priya Raman'], []);
  }
  if (dow === 2 || dow === 4) {
    const [customer, contact] = [['Harbor Coffee', 'Olivia Brooks'], ['Sakura Mart', 'Takeshi Ono'], ['Minato Taxi', null]][seq % 3];
    const issue = ['a refund that showed twice in the app', 'a payout that looked short by the Kestrel Pay fee', 'a driver who could not log in', 'a receipt that printed late', 'how to export the day\'s payments'][seq % 5];
    const handler = ['Lena Fischer', 'Diego Alvarez', 'Haruka Sato', 'Yuki Tanaka'][seq % 4];
    n(`${date}T10:${15 + (seq % 40)}`, jira(`SUP-${80 + seq}`, handler), `Support SUP-${80 + seq} from ${customer}${contact ? ` (${contact.split(' ')[0]})` : ''}: ${issue}. ${handler.split(' ')[0]} answered within the hour.`,
      [customer, handler, ...(contact ? [contact] : [])], [R(handler, 'supports_customer', customer)]);
  }
  if (dow === 1 || dow === 3 || dow === 5) {
    const flagged = 3 + ((seq * 7) % 19);
    n(`${date}T07:30`, slack('#wallet-risk', 'Yuki Tanaka'), `Fraud Scoring overnight: ${flagged} payments held for review, ${Math.max(0, flagged - 2 - (seq % 4))} released by morning, ${seq % 5 === 0 ? 'one confirmed stolen card at a Tokyo store' : 'none confirmed'}.`,
      ['Fraud Scoring', 'Yuki Tanaka'], []);
  }
  if (dow === 2 || dow === 5) {
    const store = ['Yokohama Kannai', 'Kawasaki', 'Fujisawa', 'Shinjuku 3-chome', 'Ikebukuro West', 'Nakano', 'Omiya', 'Urawa', 'Kawagoe'][seq % 9];
    const payments = 180 + ((seq * 37) % 160);
    n(`${date}T18:${10 + (seq % 40)}`, slack('#sakura-mart', 'Lena Fischer'), seq % 2 ? `Store note: Sakura Mart ${store} did ${payments} QR Checkout payments today; staff asked about ${['refunds', 'offline payments', 'receipts', 'tips', 'daily totals'][seq % 5]}.` : `店舗メモ：さくらマート${store}店、本日のQR決済は${payments}件。${['返金', 'オフライン決済', 'レシート', '日次集計'][seq % 4]}について質問あり。`,
      ['Sakura Mart', 'QR Checkout'], []);
  }
}

// ---- assemble: the first weeks' notes first, then these in time order
notes.sort((a, b) => a.when.localeCompare(b.when));
// A recurring note declares its relation once (the first time); later ones only mention.
const RECURRING = new Set(['on_call_for', 'deploys', 'reviews', 'supports_customer']);
const seen = new Set();
for (const x of notes) {
  x.relations = x.relations.filter((r) => {
    if (!RECURRING.has(r.predicate)) return true;
    const k = `${r.subject}|${r.predicate}|${r.object}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
// The first weeks' relations that began at a known instant (the notes of the new weeks give theirs in R).
const BEGAN = { 'Yuki Tanaka|maintains|Fraud Scoring': '2026-10-13T11:00:00Z' };
const began = (a) => (a?.relations ? { ...a, relations: a.relations.map((r) => (BEGAN[`${r.subject}|${r.predicate}|${r.object}`] ? { ...r, valid_from: BEGAN[`${r.subject}|${r.predicate}|${r.object}`] } : r)) } : a);
const memories = firstWeeks.memories.map((m, i) => ({ ...m, ...(m.associations ? { associations: began(m.associations) } : {}), source: m.source ?? firstWeeksSource(m, i) }));
const idOfKey = new Map();
notes.forEach((x, i) => { if (x.key) idOfKey.set(x.key, memories.length + i + 1); });
const ref = (s) => (s.startsWith('@') ? `mem:${idOfKey.get(s.slice(1)) ?? (() => { throw new Error(`no note ${s}`); })()}` : s);
for (const x of notes) {
  const names = new Set(x.entities);
  for (const r of x.relations) for (const end of [r.subject, r.object]) if (!end.startsWith('@')) names.add(end);
  const associations = {
    entities: [...names].map((name) => (ALIASES[name]?.length ? { name, aliases: ALIASES[name] } : { name })),
    relations: x.relations.map((r) => ({ ...r, subject: ref(r.subject), object: ref(r.object) })),
  };
  if (!associations.relations.length) delete associations.relations;
  memories.push({ content: x.content, timestamp: `${x.when}:00+00:00`, source: x.source, associations });
}

const out = {
  agent_id: firstWeeks.agent_id,
  description: 'A fictional seven-person team building the Tsubame Wallet mobile payments app, 28 Sep – 11 Dec 2026: the traverse demo\'s five weeks, then the Sakura Mart rollout, a new hire, two incidents and Release 3.6. Written for the associative-memory explorer; generated by make-corpus.mjs.',
  memories,
  ended: ENDED,
};
// One memory a line, like corpus-first-weeks.json.
const text = `{\n  "agent_id": ${JSON.stringify(out.agent_id)},\n  "description": ${JSON.stringify(out.description)},\n  "memories": [\n${memories.map((m) => `    ${JSON.stringify(m)}`).join(',\n')}\n  ],\n  "ended": [\n${out.ended.map((e) => `    ${JSON.stringify(e)}`).join(',\n')}\n  ]\n}\n`;
writeFileSync(new URL('./corpus.json', import.meta.url), text);
console.log(`wrote ${memories.length} memories (${notes.length} new)`);
