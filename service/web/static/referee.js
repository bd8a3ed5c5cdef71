// The referee's page: reads the position from the form, calls the service through the Connect
// protocol (a JSON POST per call, the protobuf JSON mapping) and draws the answers as cards.
// Every text from the form or the service is set with textContent, never parsed as HTML.
"use strict";

const SUIT_GLYPHS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_LETTERS = { "♣": "C", "♦": "D", "♥": "H", "♠": "S" };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const HINT_TIME_LIMIT_MS = 5000;
const RUMMY_FAMILIES = new Set(["FAMILY_REARRANGEMENT", "FAMILY_CONTRACT"]);

// A disputed rearrangement: the 5 makes the joker a 6, but it stood for 9 and no natural 9
// took its place (R5); and the queen of clubs leaves the table for nowhere (R6). The best
// move lays the 9 as well: 5 JK(6) 7 8 9.
const EXAMPLE = {
  ruleset: "carrossel",
  before: "7H 8S JK=9\nQS QD QC",
  hand: "5C 9D KS",
  after: "5C JK 7H 8S\nQS QD",
};

const $ = (id) => document.getElementById(id);
let rulesets = new Map();
let target = null; // the text field the card palette writes to

// --- The Connect protocol: one POST per unary call ----------------------------------------

class CallError extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details || [];
  }
}

async function call(service, method, request) {
  const response = await fetch(`/carrossel.v1.${service}/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  let body;
  try {
    body = text ? JSON.parse(text) : {};
  } catch (e) {
    throw new CallError("unknown", `HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
  if (!response.ok) {
    throw new CallError(body.code || "unknown", body.message || `HTTP ${response.status}`,
      body.details);
  }
  return body;
}

// --- Card notation ----------------------------------------------------------------------

function tokens(text) {
  return text.split(/[\s,]+/).filter((t) => t.length > 0);
}

function melds(text) {
  return text.split("\n").map(tokens).filter((cards) => cards.length > 0)
    .map((cards) => ({ cards }));
}

// The card without its wild value, written one way: "t♥" and "10h" are both "10H".
function baseCode(code) {
  let base = code.split("=")[0].trim().toUpperCase();
  const last = base.slice(-1);
  if (SUIT_LETTERS[last]) base = base.slice(0, -1) + SUIT_LETTERS[last];
  if (base.startsWith("T")) base = "10" + base.slice(1);
  return base;
}

function splitRankSuit(text) {
  const match = /^(10|[2-9AJQKT])([CDHS♣♦♥♠])?$/i.exec(text.trim());
  if (!match) return null;
  const rank = match[1].toUpperCase() === "T" ? "10" : match[1].toUpperCase();
  const suit = match[2] ? (SUIT_LETTERS[match[2]] || match[2].toUpperCase()) : "";
  return { rank, suit };
}

function cardElement(code) {
  const el = document.createElement("span");
  el.className = "card";
  el.title = code;
  el.dataset.code = code;
  const [base, value] = code.split("=", 2);
  const parsed = splitRankSuit(base);
  if (base.trim().toUpperCase().startsWith("JK")) {
    el.classList.add("joker");
    el.append(textSpan("rank", base.trim().toUpperCase()), textSpan("suit", "★"));
  } else if (parsed && parsed.suit) {
    if (parsed.suit === "H" || parsed.suit === "D") el.classList.add("red");
    el.append(textSpan("rank", parsed.rank), textSpan("suit", SUIT_GLYPHS[parsed.suit]));
  } else {
    el.classList.add("unknown");
    el.append(textSpan("rank", code));
    return el;
  }
  if (value !== undefined) {
    const v = splitRankSuit(value);
    el.append(textSpan("wild-value", v ? `=${v.rank}${SUIT_GLYPHS[v.suit] || ""}` : `=${value}`));
  }
  return el;
}

function textSpan(className, text) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  return span;
}

function cardRow(codes) {
  const frag = document.createDocumentFragment();
  for (const code of codes || []) frag.append(cardElement(code));
  return frag;
}

// --- Which melds changed: compared by their cards, whatever their order ------------------

function meldKey(meld) {
  return meld.cards.map(baseCode).sort().join(" ");
}

// For each meld after: true when no meld before had the very same cards. For each meld
// before: true when no meld after has them (it was broken up or added to).
function compareTables(before, after) {
  const remaining = new Map();
  for (const meld of before) {
    const key = meldKey(meld);
    remaining.set(key, (remaining.get(key) || 0) + 1);
  }
  const changedAfter = after.map((meld) => {
    const key = meldKey(meld);
    const left = remaining.get(key) || 0;
    if (left > 0) {
      remaining.set(key, left - 1);
      return false;
    }
    return true;
  });
  const goneBefore = before.map((meld) => {
    const key = meldKey(meld);
    const left = remaining.get(key) || 0;
    if (left > 0) {
      remaining.set(key, left - 1);
      return true;
    }
    return false;
  });
  return { changedAfter, goneBefore };
}

function drawTable(container, table, marks, violated) {
  container.replaceChildren();
  if (table.length === 0) {
    container.append(textSpan("empty", "no melds"));
    return;
  }
  table.forEach((meld, i) => {
    const el = document.createElement("div");
    el.className = "meld";
    el.dataset.index = String(i);
    if (marks && marks[i]) el.classList.add(marks.className);
    if (violated && violated.has(i)) el.classList.add("violated");
    el.append(textSpan("index", String(i)), cardRow(meld.cards));
    container.append(el);
  });
}

function marked(flags, className) {
  const marks = flags.slice();
  marks.className = className;
  return marks;
}

function drawBoards(violated) {
  const before = melds($("before").value);
  const after = melds($("after").value);
  const { changedAfter, goneBefore } = compareTables(before, after);
  drawTable($("board-before"), before, marked(goneBefore, "gone"), null);
  drawTable($("board-after"), after, marked(changedAfter, "changed"), violated || null);
  const hand = $("board-hand");
  hand.replaceChildren();
  const cards = tokens($("hand").value);
  if (cards.length === 0) hand.append(textSpan("empty", "no cards"));
  else hand.append(cardRow(cards));
}

// --- The request from the form -----------------------------------------------------------

// Carioca (the contract family) has a deal number and a discard; the other games have none.
function isContract() {
  const r = rulesets.get($("ruleset").value);
  return Boolean(r) && r.family === "FAMILY_CONTRACT";
}

function position() {
  const turn = {
    cardsDrawn: Number($("cards-drawn").value) || 0,
    stockEmpty: $("stock-empty").checked,
    hasMeldedSequence: $("has-melded-sequence").checked,
    hasOpened: $("has-opened").checked,
  };
  if (isContract()) turn.dealNumber = Number($("deal-number").value) || 0;
  return {
    ruleset: $("ruleset").value,
    players: Number($("players").value) || 0,
    table: melds($("before").value),
    hand: tokens($("hand").value),
    turn,
  };
}

function move() {
  const played = {
    table: melds($("after").value),
    toHand: tokens($("to-hand").value),
    knock: $("knock").checked,
  };
  if (isContract()) played.discard = $("discard").value.trim();
  return played;
}

// --- The verdict -------------------------------------------------------------------------

function humanCode(code) {
  return (code || "").replace(/^VIOLATION_CODE_/, "").replace(/_/g, " ").toLowerCase();
}

// proposal: the melds sent as the move, whose indices nearest_kept_melds gives;
// suggestionAsked: whether the request had suggest set (else the answer has no suggestion).
function showVerdict(answer, proposal, suggestionAsked) {
  const out = $("verdict");
  out.replaceChildren();
  const violations = answer.violations || [];
  const banner = document.createElement("div");
  banner.id = "verdict-banner";
  banner.className = answer.legal ? "banner legal" : "banner illegal";
  banner.textContent = answer.legal
    ? "Legal move"
    : `Illegal move: ${violations.length} violation${violations.length === 1 ? "" : "s"}`;
  out.append(banner);
  if (violations.length > 0) out.append(violationList(violations));
  out.append(effects(answer));
  if (!answer.legal && suggestionAsked) out.append(nearestLegal(answer, proposal));
  out.hidden = false;
  // The proto3 JSON mapping leaves out zeros: a violation without "meld" names meld 0.
  const named = violations.map((v) => (v.meld === undefined ? 0 : v.meld)).filter((i) => i >= 0);
  drawBoards(new Set(named));
}

function violationList(violations) {
  const list = document.createElement("ol");
  list.className = "violations";
  for (const v of violations) {
    const item = document.createElement("li");
    item.className = "violation";
    item.dataset.code = v.code || "";
    const head = document.createElement("div");
    head.className = "head";
    head.append(textSpan("rule", v.rule || "?"), textSpan("code", humanCode(v.code)));
    const meld = v.meld === undefined ? 0 : v.meld;
    if (meld >= 0) head.append(textSpan("where", `meld ${meld} of the table after`));
    const message = document.createElement("p");
    message.className = "message";
    message.textContent = v.message || "";
    const cards = document.createElement("div");
    cards.className = "cards";
    cards.append(cardRow(v.cards));
    item.append(head, message, cards);
    list.append(item);
  }
  return list;
}

function effects(answer) {
  const dl = document.createElement("dl");
  dl.className = "effects";
  const add = (term, value) => {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.append(value);
    dl.append(dt, dd);
  };
  add("Cards played", answer.played && answer.played.length ? cardRow(answer.played) : "none");
  add("Hand after", answer.handAfter && answer.handAfter.length
    ? cardRow(answer.handAfter) : "empty");
  add("Hand points after", String(answer.handPointsAfter || 0));
  add("Goes out", answer.wentOut ? "yes" : "no");
  add("May knock", answer.knockEligible ? "yes" : "no");
  return dl;
}

// --- The nearest legal move (ValidateMove's suggest) --------------------------------------

// For each meld of the nearest table: the index of the proposal's meld it keeps, or -1.
// The service names the kept melds by their index in the proposal; the page finds each on
// the nearest table by its cards (a wild's written value aside, as the proposal may leave it
// unwritten), one nearest meld per kept meld.
function keptMelds(nearest, proposal, keptIndices) {
  const wanted = new Map();
  for (const i of keptIndices) {
    if (!proposal[i]) continue;
    const key = meldKey(proposal[i]);
    wanted.set(key, [...(wanted.get(key) || []), i]);
  }
  return nearest.map((meld) => {
    const waiting = wanted.get(meldKey(meld)) || [];
    return waiting.length > 0 ? waiting.shift() : -1;
  });
}

function nearestLegal(answer, proposal) {
  const box = document.createElement("section");
  box.id = "suggestion";
  box.className = "suggestion";
  box.setAttribute("aria-labelledby", "suggestion-title");
  const title = document.createElement("h3");
  title.id = "suggestion-title";
  title.textContent = "Nearest legal move";
  box.append(title);
  const note = document.createElement("p");
  note.id = "suggestion-note";
  note.className = "note";
  const solved = answer.nearestLegal;
  if (!solved) {
    // None: a legal move to the proposal's cards does not exist (the note says why).
    note.textContent = `None. ${answer.suggestionNote || "The service gave no suggestion."}`;
    box.append(note);
    return box;
  }
  note.textContent = answer.suggestionNote || "";
  const move = solved.move || {};
  const table = move.table || [];
  const kept = keptMelds(table, proposal, answer.nearestKeptMelds || []);
  const list = document.createElement("ol");
  list.id = "nearest-table";
  list.className = "board nearest";
  list.setAttribute("aria-label", "The nearest legal table, melds kept as proposed marked *");
  if (table.length === 0) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "no melds";
    list.append(empty);
  }
  table.forEach((meld, i) => {
    const item = document.createElement("li");
    item.className = "meld";
    item.dataset.index = String(i);
    item.append(textSpan("index", String(i)));
    if (kept[i] >= 0) {
      // The CLI's "*", in words as well: the mark must not rest on colour alone.
      item.classList.add("kept");
      item.dataset.kept = String(kept[i]);
      item.append(textSpan("kept-mark", "*"));
      item.title = `kept as proposed (your meld ${kept[i]})`;
    }
    item.append(cardRow(meld.cards));
    if (kept[i] >= 0) item.append(textSpan("kept-text", `kept: your meld ${kept[i]}`));
    list.append(item);
  });
  const facts = document.createElement("dl");
  facts.className = "effects";
  const add = (term, value) => {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.append(value);
    facts.append(dt, dd);
  };
  add("Cards played", solved.played && solved.played.length ? cardRow(solved.played) : "none");
  if (move.toHand && move.toHand.length) add("Taken back", cardRow(move.toHand));
  if (move.discard) add("Discard", cardRow([move.discard]));
  add("Same cards as proposed", answer.nearestSameCards ? "yes" : "no");
  add("Proved nearest", answer.suggestionOptimal ? "yes" : "no: the time ran out first");
  add("Hand points after", String(solved.handPointsAfter || 0));
  const use = document.createElement("button");
  use.id = "use-suggestion";
  use.textContent = "Put this move in Table after";
  use.addEventListener("click", () => {
    $("after").value = table.map((m) => m.cards.join(" ")).join("\n");
    $("to-hand").value = (move.toHand || []).join(" ");
    if (move.discard) $("discard").value = move.discard;
    drawBoards();
  });
  box.append(note, list, facts, use);
  return box;
}

function showError(where, error) {
  where.replaceChildren();
  const banner = document.createElement("div");
  banner.className = "banner error";
  banner.textContent = `The service refused the request (${error.code})`;
  const message = document.createElement("p");
  message.textContent = error.message;
  where.append(banner, message);
  const problems = document.createElement("ul");
  problems.className = "field-problems";
  for (const detail of error.details) {
    const fields = (detail.debug && detail.debug.fieldViolations) || [];
    for (const f of fields) {
      const li = document.createElement("li");
      const code = document.createElement("code");
      code.textContent = f.field || "(request)";
      li.append(code, ` ${f.description || ""}`);
      problems.append(li);
    }
  }
  if (problems.children.length > 0) where.append(problems);
  where.hidden = false;
}

// --- The hint ----------------------------------------------------------------------------

function showHint(answer) {
  const out = $("hint-out");
  out.replaceChildren();
  const title = document.createElement("h2");
  title.textContent = "Best move";
  out.append(title);
  const stats = answer.stats || {};
  const status = textSpan("status",
    `${stats.status || "UNKNOWN"}, ${Math.round(stats.wallTimeMs || 0)} ms`
    + (answer.optimal ? ", proved best" : ""));
  const moves = answer.moves || [];
  if (moves.length === 0) {
    const p = document.createElement("p");
    p.id = "hint-summary";
    p.className = "summary";
    p.textContent = "No legal play: the player draws or passes. ";
    p.append(status);
    out.append(p);
    out.hidden = false;
    return;
  }
  const best = moves[0];
  const table = (best.move && best.move.table) || [];
  const summary = document.createElement("p");
  summary.id = "hint-summary";
  summary.className = "summary";
  summary.append(`Plays ${(best.played || []).length} card(s), leaves `
    + `${best.handPointsAfter || 0} points in hand, changes ${best.meldsChanged || 0} meld(s)`
    + `${best.wentOut ? " and goes out" : ""}. `, status);
  const board = document.createElement("div");
  board.id = "hint-board";
  board.className = "board";
  const { changedAfter } = compareTables(melds($("before").value), table);
  drawTable(board, table, marked(changedAfter, "changed"), null);
  const use = document.createElement("button");
  use.textContent = "Put this move in Table after";
  use.addEventListener("click", () => {
    $("after").value = table.map((m) => m.cards.join(" ")).join("\n");
    $("to-hand").value = ((best.move && best.move.toHand) || []).join(" ");
    drawBoards();
  });
  const played = document.createElement("dl");
  played.className = "effects";
  const dt = document.createElement("dt");
  dt.textContent = "Cards played";
  const dd = document.createElement("dd");
  dd.append(cardRow(best.played));
  played.append(dt, dd);
  out.append(summary, board, played, use);
  out.hidden = false;
}

// --- Wiring ------------------------------------------------------------------------------

async function withBusy(button, work) {
  button.disabled = true;
  button.classList.add("busy");
  try {
    await work();
  } finally {
    button.disabled = false;
    button.classList.remove("busy");
    applyRuleset();
  }
}

async function judge() {
  const played = move();
  const suggest = $("suggest").checked;
  try {
    const request = { position: position(), move: played, suggest };
    showVerdict(await call("RummyService", "ValidateMove", request), played.table, suggest);
  } catch (error) {
    if (!(error instanceof CallError)) throw error;
    showError($("verdict"), error);
  }
}

async function hint() {
  const request = { position: position(), maxMoves: 1, timeLimitMs: HINT_TIME_LIMIT_MS };
  try {
    showHint(await call("RummyService", "SolveMove", request));
  } catch (error) {
    if (!(error instanceof CallError)) throw error;
    showError($("hint-out"), error);
  }
}

function applyRuleset() {
  const r = rulesets.get($("ruleset").value);
  const served = new Set((r && r.servedRpcs) || []);
  $("judge").disabled = !served.has("ValidateMove");
  $("hint").disabled = !served.has("SolveMove");
  for (const el of document.querySelectorAll(".contract-only")) el.hidden = !isContract();
  if (!r) return;
  $("players").min = String(r.minPlayers || 2);
  $("players").max = String(r.maxPlayers || 5);
  $("ruleset-info").textContent = [
    `${r.name}: ${(r.description || "").replace(/\.$/, "")}`,
    `Draw: ${r.drawRuleText || "-"}`,
    `Served here: ${[...served].join(", ") || "nothing yet"}`,
  ].join(" · ");
}

function buildPalette() {
  const palette = $("palette");
  for (const suit of ["S", "H", "C", "D"]) {
    for (const rank of RANKS) palette.append(cardElement(rank + suit));
    palette.append(suit === "S" ? cardElement("JK") : document.createElement("span"));
  }
  palette.addEventListener("click", (event) => {
    const card = event.target.closest(".card");
    if (card) addCard(card.dataset.code);
  });
}

function addCard(code) {
  const field = target || $("after");
  const text = field.value;
  const sep = text === "" || text.endsWith("\n") || text.endsWith(" ") ? "" : " ";
  field.value = text + sep + code;
  drawBoards();
}

function setTarget(field, name) {
  if (target) target.classList.remove("target");
  target = field;
  target.classList.add("target");
  $("target-name").textContent = name;
}

async function loadRulesets() {
  const answer = await call("RulesetService", "ListRulesets", {});
  $("version").textContent = `carrossel ${answer.version || "?"}`;
  const select = $("ruleset");
  for (const r of answer.rulesets || []) {
    rulesets.set(r.id, r);
    const option = document.createElement("option");
    option.value = r.id;
    // The page is RummyService's: a fishing game is listed but not chosen. A rummy game
    // is, and its buttons then follow its served_rpcs.
    const rummy = RUMMY_FAMILIES.has(r.family);
    option.textContent = rummy ? r.name : `${r.name} (fishing: not on this page)`;
    option.disabled = !rummy;
    select.append(option);
  }
  select.value = "carrossel";
  applyRuleset();
  document.body.dataset.ready = "true"; // tells a test driving the page that it has loaded
}

function loadExample() {
  $("ruleset").value = EXAMPLE.ruleset;
  $("before").value = EXAMPLE.before;
  $("hand").value = EXAMPLE.hand;
  $("after").value = EXAMPLE.after;
  $("cards-drawn").value = "1";
  applyRuleset();
  drawBoards();
}

function init() {
  buildPalette();
  const names = { before: "Table before", hand: "Hand", after: "Table after", "to-hand": "Taken back" };
  for (const [id, name] of Object.entries(names)) {
    $(id).addEventListener("focus", () => setTarget($(id), name));
    $(id).addEventListener("input", () => drawBoards());
  }
  setTarget($("after"), names.after);
  $("ruleset").addEventListener("change", applyRuleset);
  $("judge").addEventListener("click", () => withBusy($("judge"), judge));
  $("hint").addEventListener("click", () => withBusy($("hint"), hint));
  $("copy").addEventListener("click", () => {
    $("after").value = $("before").value;
    drawBoards();
  });
  $("example").addEventListener("click", loadExample);
  drawBoards();
  loadRulesets().catch((error) => {
    showError($("verdict"), error instanceof CallError ? error : new CallError("unavailable",
      String(error)));
  });
}

document.addEventListener("DOMContentLoaded", init);
