// The comments page: asks /search/ for an article's ranked comments and shows why each is where it is;
// votes and replies go to /document/v1/. Plain JavaScript, no build step. User text is only ever set as
// textContent, never as HTML.
"use strict";

const NAMESPACE = "dwell";
// The network's nine inputs, in the order of nn_input in comment.sd.
const INPUTS = ["freshness", "log upvotes", "log downvotes", "log replies", "author reputation",
                "log length", "log reports", "log reads", "read time (s)"];
const PROFILES = ["freshness", "neural", "neural_onnx"];

const state = {
  article: null,
  ranking: "neural",
  hits: 10,
  collapse: false,
  exploration: {},     // exploration.* parameters of the page's own URL, passed on to /search/
  previous: null,      // {ranking, places: Map(documentid -> place)}: the order before a profile switch
};

const $ = (id) => document.getElementById(id);

function readLocation() {
  const params = new URLSearchParams(location.search);
  state.article = params.get("article");
  if (PROFILES.includes(params.get("ranking"))) state.ranking = params.get("ranking");
  const hits = parseInt(params.get("hits"), 10);
  if (hits > 0 && hits <= 50) state.hits = hits;
  state.collapse = params.get("collapse") === "true";
  for (const [name, value] of params)
    if (name.startsWith("exploration.")) state.exploration[name] = value;
}

function writeLocation() {
  const params = new URLSearchParams({ article: state.article, ranking: state.ranking, hits: state.hits });
  if (state.collapse) params.set("collapse", "true");
  for (const [name, value] of Object.entries(state.exploration)) params.set(name, value);
  history.replaceState(null, "", "?" + params.toString());
}

// ---------------------------------------------------------------------------------------------
// HTTP

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${url}: ${response.status} ${errorText(body)}`);
  return body;
}

async function sendJson(method, url, body) {
  const response = await fetch(url, { method, headers: { "Content-Type": "application/json" },
                                      body: JSON.stringify(body) });
  const reply = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${reply.message || ""}`);
  return reply;
}

function errorText(body) {
  const errors = body && body.root && body.root.errors;
  if (errors && errors.length) return errors.map((e) => e.message || e.summary).join("; ");
  return (body && body.message) || "";
}

function documentPath(type, documentId) {
  const local = documentId.substring(documentId.indexOf("::") + 2);
  return `/document/v1/${NAMESPACE}/${type}/docid/${encodeURIComponent(local)}`;
}

// The article view as /search/ serves it: the same parameters a reader's page view sends.
function viewQuery(fresh) {
  const params = new URLSearchParams({ article: state.article, ranking: state.ranking, hits: state.hits });
  if (state.collapse) params.set("collapse.threshold", "0.9");
  for (const [name, value] of Object.entries(state.exploration)) params.set(name, value);
  if (fresh) params.set("cache", "false");   // right after this reader's own write: not the cached window
  return "/search/?" + params.toString();
}

function yqlQuery(yql, ranking, hits) {
  return "/search/?" + new URLSearchParams({ yql, ranking, hits }).toString();
}

const quoted = (s) => '"' + String(s).replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';

// ---------------------------------------------------------------------------------------------
// The article view

async function load(fresh = false) {
  document.body.dataset.state = "loading";
  $("error").hidden = true;
  try {
    const query = viewQuery(fresh);
    const result = await getJson(query);
    const hits = (result.root.children || []).filter((hit) => hit.fields && hit.fields.documentid);
    await render(result, hits);
    document.body.dataset.query = query;
    await showModel(result.root.fields || {});
    document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
    document.body.dataset.state = "ready";
  } catch (error) {
    showError(error);
  }
}

function showError(error) {
  $("error").textContent = String(error.message || error);
  $("error").hidden = false;
  document.body.dataset.state = "error";
}

async function render(result, hits) {
  const root = result.root;
  const list = $("comments");
  list.replaceChildren();
  const places = new Map(hits.map((hit, place) => [hit.fields.documentid, place]));
  const replies = await repliesTo(hits.map((hit) => hit.fields.comment_id));
  hits.forEach((hit, place) => list.append(commentItem(hit, place, replies)));
  const total = root.fields ? root.fields.totalCount : undefined;
  const explored = root.fields && root.fields.explored ? ", explored" : "";
  $("summary").textContent = `${total === undefined ? "?" : total} comments on ${state.article}; ` +
    `the best ${hits.length} by ${state.ranking}${explored}` +
    (state.collapse ? ", near-duplicates collapsed" : "") +
    (root.fields && root.fields.query_id ? ` (query ${root.fields.query_id})` : "");
  state.shown = { ranking: state.ranking, places };
}

function commentItem(hit, place, replies) {
  const f = hit.fields;
  const features = f.matchfeatures || {};
  const item = $("comment-template").content.firstElementChild.cloneNode(true);
  item.classList.add("ranked");
  item.dataset.docid = f.documentid;
  item.dataset.commentId = f.comment_id;
  item.dataset.place = place;
  item.querySelector(".author").textContent = f.author_id || "(anonymous)";
  item.querySelector(".reputation").textContent = isFinite(f.author_reputation)
    ? `reputation ${Number(f.author_reputation).toFixed(2)}` : "";
  item.querySelector(".age").textContent = age(f.created_at);
  item.querySelector(".votes").textContent = `▲ ${f.upvotes || 0} ▼ ${f.downvotes || 0} · ${plural(f.reply_count || 0, "reply", "replies")}`;
  item.querySelector(".text").textContent = f.text || "";
  if (f.parent_id) {
    const replyTo = item.querySelector(".reply-to");
    replyTo.textContent = `in reply to ${f.parent_id}`;
    replyTo.hidden = false;
  }

  item.querySelector(".score").textContent = `score ${number(hit.relevance)}`;
  item.querySelector(".first-phase").textContent =
    features.baseline !== undefined ? `first phase ${number(features.baseline)}` : "";
  const version = features["query(model_version)"];
  item.querySelector(".version").textContent = state.ranking === "freshness" ? "no model"
    : state.ranking === "neural_onnx" ? "model: the package's ONNX"
    : `model v${version === undefined ? "?" : version}${version === 0 ? " (package constants)" : ""}`;
  if (f.duplicates > 0) item.querySelector(".duplicates").textContent = `absorbs ${f.duplicates} near-duplicate${f.duplicates > 1 ? "s" : ""}`;
  if (f.greedy_position !== undefined && f.greedy_position !== f.position) {
    item.classList.add("explored");
    item.querySelector(".moved").textContent = `exploration moved it: #${f.greedy_position + 1} by score`;
  }
  const previous = state.previous && state.previous.ranking !== state.ranking ? state.previous : null;
  if (previous) {
    const before = previous.places.get(f.documentid);
    const change = item.querySelector(".change");
    if (before === undefined) change.textContent = `new in the top ${state.hits} (not shown by ${previous.ranking})`;
    else if (before === place) change.textContent = `same place as in ${previous.ranking}`;
    else change.textContent = `${before > place ? "▲ up" : "▼ down"} from #${before + 1} in ${previous.ranking}`;
    change.classList.add(before === undefined || before > place ? "up" : before < place ? "down" : "same");
  }
  inputsTable(item.querySelector(".inputs table"), features);

  item.querySelector(".vote").addEventListener("click", () => vote(f.documentid));
  item.querySelector(".reply").addEventListener("click", () => {
    const form = item.querySelector(".reply-form");
    form.hidden = !form.hidden;
  });
  item.querySelector(".reply-form").addEventListener("submit", (event) => {
    event.preventDefault();
    reply(f, event.target.elements.text.value);
  });
  item.querySelector(".similar").addEventListener("click", () => similar(f));
  const own = replies.get(f.comment_id) || [];
  for (const r of own) item.querySelector(".replies").append(replyItem(r));
  return item;
}

function replyItem(hit) {
  const li = document.createElement("li");
  li.className = "reply-item";
  li.dataset.docid = hit.fields.documentid;
  const who = document.createElement("span");
  who.className = "author";
  who.textContent = `${hit.fields.author_id || "(anonymous)"} · ${age(hit.fields.created_at)} · ▲ ${hit.fields.upvotes || 0}`;
  const text = document.createElement("p");
  text.textContent = hit.fields.text || "";
  li.append(who, text);
  return li;
}

function inputsTable(table, features) {
  const values = tensorValues(features.nn_input);
  table.replaceChildren();
  if (!values) return;
  INPUTS.forEach((name, i) => {
    const row = table.insertRow();
    row.insertCell().textContent = name;
    row.insertCell().textContent = number(values[i]);
  });
  if (features.nn_score !== undefined) {
    const row = table.insertRow();
    row.insertCell().textContent = "network output";
    row.insertCell().textContent = number(features.nn_score);
  }
}

// A dense tensor's values in any of the JSON forms Vespa renders: {values: [...]}, or {cells: [...]}.
function tensorValues(tensor) {
  if (!tensor) return null;
  if (Array.isArray(tensor.values)) return tensor.values;
  if (Array.isArray(tensor.cells)) return tensor.cells.map((c) => c.value);
  return null;
}

async function repliesTo(commentIds) {
  const ids = commentIds.filter(Boolean);
  if (!ids.length) return new Map();
  const yql = "select * from comment where " + ids.map((id) => `parent_id contains ${quoted(id)}`).join(" or ") +
    " order by created_at asc";
  const result = await getJson(yqlQuery(yql, "freshness", 200));
  const byParent = new Map();
  for (const hit of result.root.children || []) {
    if (!hit.fields || !hit.fields.parent_id) continue;
    if (!byParent.has(hit.fields.parent_id)) byParent.set(hit.fields.parent_id, []);
    byParent.get(hit.fields.parent_id).push(hit);
  }
  return byParent;
}

// ---------------------------------------------------------------------------------------------
// Writes: through /document/v1/, then the next query shows the new order

async function vote(documentId) {
  try {
    await sendJson("PUT", documentPath("comment", documentId), { fields: { upvotes: { increment: 1 } } });
    await load(true);
  } catch (error) {
    showError(error);
  }
}

async function reply(parent, text) {
  if (!text.trim()) return;
  const id = `reply-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  try {
    await sendJson("POST", `/document/v1/${NAMESPACE}/comment/docid/${id}`, {
      fields: { article_id: state.article, author_id: "reader", parent_id: parent.comment_id, text } });
    await sendJson("PUT", documentPath("comment", parent.documentid), { fields: { reply_count: { increment: 1 } } });
    await load(true);
  } catch (error) {
    showError(error);
  }
}

// ---------------------------------------------------------------------------------------------
// Similar comments: the nearest neighbours of a comment's embedding (SimilarCommentsSearcher)

async function similar(fields) {
  try {
    const result = await getJson("/search/?" + new URLSearchParams({ similar: fields.comment_id, hits: 5 }).toString());
    $("similar").hidden = false;
    $("similar-to").textContent = `Closest to “${truncate(fields.text, 80)}”, across all articles:`;
    const list = $("similar-list");
    list.replaceChildren();
    for (const hit of result.root.children || []) {
      if (!hit.fields || !hit.fields.documentid) continue;
      const li = document.createElement("li");
      li.dataset.docid = hit.fields.documentid;
      const closeness = hit.fields.matchfeatures && hit.fields.matchfeatures["closeness(field,embedding)"];
      li.textContent = `${truncate(hit.fields.text, 120)} (${hit.fields.article_id}` +
        (closeness !== undefined ? `, closeness ${number(closeness)})` : ")");
      list.append(li);
    }
  } catch (error) {
    showError(error);
  }
}

// ---------------------------------------------------------------------------------------------
// The live model and its learning curve

async function showModel(rootFields) {
  const facts = $("model-facts");
  facts.replaceChildren();
  const add = (term, value) => {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    facts.append(dt, dd);
  };
  add("rank profile", state.ranking);
  if (state.ranking !== "neural") {
    add("model", state.ranking === "freshness" ? "none: the hand-written first phase"
                                               : "the ONNX network shipped in the package (models/dwell_nn.onnx)");
    drawCurve(null);
    return;
  }
  add("version live", rootFields.model_version === undefined ? "?" : String(rootFields.model_version));
  let doc = null;
  try {
    doc = await getJson(`/document/v1/${NAMESPACE}/rankingmodel/docid/${state.ranking}`);
  } catch (error) {
    add("rankingmodel document", "none fed: the package's constants rank");
  }
  const fields = (doc && doc.fields) || {};
  if (doc) {
    add("document version", String(fields.version));
    add("trained", when(fields.trained_at));
    add("shipped", fields.shipped_at ? when(fields.shipped_at) : "not recorded");
  }
  drawCurve(fields.curve_learned && fields.curve_freshness
    ? { learned: fields.curve_learned, freshness: fields.curve_freshness } : null);
}

function drawCurve(curve) {
  const svg = $("curve");
  svg.replaceChildren();
  const ns = "http://www.w3.org/2000/svg";
  const text = (x, y, s, anchor = "start") => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("text-anchor", anchor);
    t.textContent = s;
    svg.append(t);
  };
  if (!curve || !curve.learned.length) {
    text(160, 80, "no learning curve with this model", "middle");
    svg.dataset.points = "0";
    return;
  }
  const all = curve.learned.concat(curve.freshness);
  const lo = Math.min(...all), hi = Math.max(...all), n = curve.learned.length;
  const x = (i) => 40 + (n === 1 ? 130 : (i * 270) / (n - 1));
  const y = (v) => 140 - (hi === lo ? 60 : ((v - lo) * 120) / (hi - lo));
  for (const [name, values] of [["freshness", curve.freshness], ["learned", curve.learned]]) {
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("class", name);
    line.setAttribute("points", values.map((v, i) => `${x(i)},${y(v)}`).join(" "));
    svg.append(line);
  }
  text(36, y(hi) + 4, hi.toFixed(1), "end");
  text(36, y(lo) + 4, lo.toFixed(1), "end");
  text(x(0), 156, "0", "middle");
  text(x(n - 1), 156, String(n - 1), "middle");
  svg.dataset.points = String(n);
}

// ---------------------------------------------------------------------------------------------
// Articles to choose from: the most-commented ones (a grouping query)

async function topArticles() {
  const yql = "select * from comment where true limit 0 | all(group(article_id) order(-count()) max(20) each(output(count())))";
  const result = await getJson(yqlQuery(yql, "freshness", 0));
  const groups = [];
  (function walk(node) {
    if (!node) return;
    if (node.id && node.id.startsWith("group:string:")) groups.push({ article: node.value, count: node.fields && node.fields["count()"] });
    (node.children || []).forEach(walk);
  })(result.root);
  return groups;
}

// ---------------------------------------------------------------------------------------------
// Formatting

function number(v) {
  if (v === undefined || v === null) return "?";
  const n = Number(v);
  return Math.abs(n) >= 100 ? n.toFixed(1) : n.toFixed(3);
}

function age(createdAt) {
  if (!createdAt) return "";
  const hours = (Date.now() / 1000 - createdAt) / 3600;
  if (hours < 0) return "just now";
  if (hours < 1 / 60) return "just now";
  if (hours < 1) return `${Math.round(hours * 60)} min ago`;
  if (hours < 48) return `${Math.round(hours)} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

function when(ms) {
  return ms ? new Date(Number(ms)).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC") : "unknown";
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

const truncate = (s, n) => (!s ? "" : s.length > n ? s.slice(0, n - 1) + "…" : s);

// ---------------------------------------------------------------------------------------------

async function start() {
  readLocation();
  for (const input of document.querySelectorAll("#profiles input"))
    input.checked = input.value === state.ranking;
  $("collapse").checked = state.collapse;
  $("hits").value = String(state.hits);

  try {
    const articles = await topArticles();
    for (const a of articles) {
      const option = document.createElement("option");
      option.value = a.article;
      option.label = `${a.count} comments`;
      $("top-articles").append(option);
    }
    if (!state.article && articles.length) state.article = articles[0].article;
  } catch (error) {
    if (!state.article) return showError(error);
  }
  if (!state.article) return showError(new Error("no article: give one as ?article=<id>"));
  $("article").value = state.article;
  writeLocation();

  $("profiles").addEventListener("change", (event) => {
    state.previous = state.shown;
    state.ranking = event.target.value;
    writeLocation();
    load();
  });
  $("collapse").addEventListener("change", (event) => { state.collapse = event.target.checked; writeLocation(); load(); });
  $("hits").addEventListener("change", (event) => { state.hits = parseInt(event.target.value, 10); writeLocation(); load(); });
  $("controls").addEventListener("submit", (event) => event.preventDefault());
  $("article").addEventListener("change", (event) => {
    state.article = event.target.value.trim();
    state.previous = null;
    writeLocation();
    load();
  });
  await load();
}

start();
