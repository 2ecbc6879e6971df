"""A corpus of malformed requests against dwell's package: each must get a 4xx, change nothing,
and leave the runtime serving. Requests are (name, method, url, body bytes, content type)."""
from __future__ import annotations

import io
import json
import urllib.parse
import zipfile
from pathlib import Path

CONTAINER = "http://localhost:8080"
CONFIG_SERVER = "http://localhost:19071"
DOC = f"{CONTAINER}/document/v1/dwell/comment/docid/c1"
NEW_DOC = f"{CONTAINER}/document/v1/dwell/comment/docid/bad-input-new"
MODEL = f"{CONTAINER}/document/v1/dwell/rankingmodel/docid/neural"
DEPLOY = f"{CONFIG_SERVER}/application/v2/tenant/default/prepareandactivate"

VALID_PUT = {"fields": {"article_id": "news-1", "author_id": "ann", "text": "A valid comment.", "upvotes": 3}}
VALID_UPDATE = {"fields": {"upvotes": {"increment": 1}, "text": {"assign": "Changed text."}}}


def _json(value) -> bytes:
    return json.dumps(value).encode()


def broken_json() -> list[tuple]:
    requests = []
    put, update = json.dumps(VALID_PUT), json.dumps(VALID_UPDATE)
    # every proper prefix is broken JSON: cut at 25 places in each
    for text, method, url in ((put, "POST", NEW_DOC), (update, "PUT", DOC)):
        for cut in sorted({max(1, len(text) * k // 26) for k in range(1, 26)}):
            requests.append((f"truncated {method} at {cut}", method, url, text[:cut].encode(), "application/json"))
    for i, body in enumerate([b"{", b"}", b"[]", b"null", b"42", b'"fields"', b"{fields: {}}", b"{'fields': {}}",
                              b'{"fields": {"upvotes": 1,}}', b'{"fields": {"upvotes": 01}}', b'{"fields": {"upvotes": NaN}}',
                              b'{"fields": {"text": "unterminated}}', b'{"fields": {"text": "a"} "x": 1}',
                              b'{"fields": [1, 2]}', b'{"fields": "text"}', b'\xff\xfe\x00garbage', b"<xml/>",
                              b'{"fields": {"upvotes": 1}} trailing', b'{"fields": {"upvotes": 1}}}',
                              b'{"fields": {"upvotes": {"increment": }}}']):
        requests.append((f"broken json {i}", "POST", NEW_DOC, body, "application/json"))
        requests.append((f"broken json update {i}", "PUT", DOC, body, "application/json"))
    return requests


def wrong_types() -> list[tuple]:
    requests = []
    for field in ("upvotes", "downvotes", "reply_count", "report_count", "created_at"):
        for value in ("many", {"a": 1}, [1, 2], "12x", True):
            requests.append((f"put {field}={value!r}", "POST", NEW_DOC,
                             _json({"fields": {**VALID_PUT["fields"], field: value}}), "application/json"))
        for operation in ({"increment": "one"}, {"assign": "x"}, {"multiply": [2]}, {"divide": {"by": 2}}):
            requests.append((f"update {field} {operation}", "PUT", DOC, _json({"fields": {field: operation}}), "application/json"))
    for value in ({"a": 1}, [1, 2]):
        requests.append((f"put text={value!r}", "POST", NEW_DOC, _json({"fields": {**VALID_PUT["fields"], "text": value}}), "application/json"))
    for operation in ({"nosuchop": 1}, {"add": [1]}, {"remove": {"x": 1}}, {"increment": 1, "nosuchop": 1}):
        requests.append((f"update op {operation}", "PUT", DOC, _json({"fields": {"upvotes": operation}}), "application/json"))
    return requests


def unknown_fields() -> list[tuple]:
    requests = []
    for field in ("karma", "Upvotes", "text ", "comment.text", "article-id", "", "fields", "id"):
        requests.append((f"put unknown field {field!r}", "POST", NEW_DOC,
                         _json({"fields": {**VALID_PUT["fields"], field: 1}}), "application/json"))
        requests.append((f"update unknown field {field!r}", "PUT", DOC, _json({"fields": {field: {"assign": 1}}}), "application/json"))
    # invalid comments, refused by the package's docproc (invalid input)
    requests.append(("comment without article", "POST", NEW_DOC, _json({"fields": {"text": "no article"}}), "application/json"))
    requests.append(("comment without text", "POST", NEW_DOC, _json({"fields": {"article_id": "news-1"}}), "application/json"))
    requests.append(("comment with blank text", "POST", NEW_DOC, _json({"fields": {"article_id": "news-1", "text": "   "}}), "application/json"))
    requests.append(("comment over 10,000 characters", "POST", NEW_DOC,
                     _json({"fields": {"article_id": "news-1", "text": "x" * 10_001}}), "application/json"))
    return requests


def invalid_ids() -> list[tuple]:
    base = f"{CONTAINER}/document/v1"
    requests = []
    for path in ("dwell/nosuchtype/docid/x", "dwell/Comment/docid/x", "dwell/comment/number/abc/x", "dwell/comment/number/-1x/x",
                 "dwell/comment/group//x", "dwell/comment/nosuchkind/x", "dwell/comment/docid", "dwell/comment/docid/",
                 "dwell/comment"):
        requests.append((f"put at {path}", "POST", f"{base}/{path}", _json(VALID_PUT), "application/json"))
        requests.append((f"update at {path}", "PUT", f"{base}/{path}", _json(VALID_UPDATE), "application/json"))
    for path in ("dwell/nosuchtype/docid/x", "dwell/comment/number/abc/x"):
        requests.append((f"get at {path}", "GET", f"{base}/{path}", None, None))
        requests.append((f"delete at {path}", "DELETE", f"{base}/{path}", None, None))
    # parameters that are not valid
    for parameter in ("condition=comment.upvotes%3D%3D", "condition=((", "condition=nosuchtype.x==1",
                      "timeout=soon", "timeout=-1xs", "tracelevel=high"):
        requests.append((f"update with {parameter}", "PUT", f"{DOC}?{parameter}", _json(VALID_UPDATE), "application/json"))
    for parameter in ("selection=((", "selection=nosuchtype.x%3D%3D1", "wantedDocumentCount=many", "cluster=nosuch",
                      "continuation=not-a-token", "concurrency=x", "bucketSpace=nosuch"):
        requests.append((f"visit with {parameter}", "GET", f"{base}/?cluster=dwell&{parameter}" if "cluster=" not in parameter
                         else f"{base}/?{parameter}", None, None))
    requests.append(("visit without cluster", "GET", f"{base}/?selection=true", None, None))
    requests.append(("remove with bad condition", "DELETE", f"{DOC}?condition=((", None, None))
    return requests


def bad_tensors() -> list[tuple]:
    good = [[0.0] * 9 for _ in range(9)]
    cases = {
        "unknown dimension": {"cells": [{"address": {"x": "0", "nope": "0"}, "value": 1.0}]},
        "index out of range": {"cells": [{"address": {"x": "9", "h1": "0"}, "value": 1.0}]},
        "negative index": {"cells": [{"address": {"x": "-1", "h1": "0"}, "value": 1.0}]},
        "label on indexed": {"cells": [{"address": {"x": "a", "h1": "0"}, "value": 1.0}]},
        "missing dimension": {"cells": [{"address": {"x": "0"}, "value": 1.0}]},
        "cell is a string": {"cells": [{"address": {"x": "0", "h1": "0"}, "value": "one"}]},
        "too many values": {"values": [0.0] * 82},
        "too many rows": {"values": [[0.0] * 9] * 10},
        "values are strings": {"values": [["a"] * 9] * 9},
        "blocks on dense": {"blocks": [{"address": {"x": "0"}, "values": [1.0] * 9}]},
        "not a tensor": "W_0",
        "number": 1.5,
        "wrong hex length": {"values": "00ff"},
        "empty values": {"values": []},
    }
    requests = [(f"tensor put: {name}", "POST", MODEL, _json({"fields": {"profile": "neural", "W_0": value}}), "application/json")
                for name, value in cases.items()]
    requests += [(f"tensor modify: {name}", "PUT", MODEL, _json({"fields": {"W_0": {"modify": {"operation": "replace", **({"cells": value["cells"]} if isinstance(value, dict) and "cells" in value else {"cells": "x"})}}}}), "application/json")
                 for name, value in list(cases.items())[:6] if name not in ("negative index", "label on indexed")]
    requests.append(("tensor modify unknown operation", "PUT", MODEL,
                     _json({"fields": {"W_0": {"modify": {"operation": "power", "cells": [{"address": {"x": "0", "h1": "0"}, "value": 2}]}}}}), "application/json"))
    return requests


def bad_queries() -> list[tuple]:
    yqls = ["select", "select * from", "select * from comment where", "select * from comment where article_id contains",
            "select * from comment where article_id contains \"x", "select * from comment where ((article_id contains \"x\"",
            "select * from comment where article_id contains \"x\" order by", "select * from comment where upvotes > \"x\"",
            "select * from comment where nosuchfunction(1)", "select * form comment where true",
            "select * from comment where article_id contains \"x\" limit -1", "select * from comment where true |",
            "select * from comment where true | all(group(", "select * from comment where true | all(group(article_id) each(output(nosuch())))",
            "select * from comment where article_id matches \"[\"", "select * from comment where true and",
            "select * from comment where {targetHits:}nearestNeighbor(a,b)", "delete from comment", "select * from comment where 1 = = 1",
            "select * from comment where true timeout -5", "select * from sources where true",
            "select * from comment where upvotes in ()", "select * from comment where weakAnd()", "select * from comment where range(upvotes, 1)",
            "; drop table comment", "select * from comment where article_id contains ({bad annotation}\"x\")"]
    requests = [(f"yql {y!r}", "GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({"yql": y}), None, None) for y in yqls]
    where = "select * from comment where true"
    for name, parameters in {
        "unknown rank profile": {"ranking": "nosuchprofile"},
        "unknown rank profile (ranking.profile)": {"ranking.profile": "n0pe"},
        "unknown summary class": {"presentation.summary": "nosuchsummary"},
        "hits not a number": {"hits": "ten"},
        "offset negative": {"offset": "-5"},
        "hits too many": {"hits": "1000000"},
        "timeout not a duration": {"timeout": "soon"},
        "query tensor of wrong type": {"ranking": "neural", "input.query(W_0)": "{{y:0}:1.0}"},
        "query tensor with too many values": {"ranking": "neural", "input.query(b_0)": "[" + ",".join(["1"] * 10) + "]"},
        "query tensor garbage": {"ranking": "neural", "input.query(W_0)": "{{{"},
        "rerank count not a number": {"ranking.secondPhase.rerankCount": "many"},
        "trace level not a number": {"trace.level": "x"},
        "unknown query profile": {"queryProfile": "nosuchprofile"},
        "bad sorting": {"sorting": "+nosuchattribute("},
        "bad query syntax type": {"query": "x", "type": "nosuchtype"},
    }.items():
        requests.append((f"search: {name}", "GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({"yql": where, **parameters}), None, None))
    for i, body in enumerate([b"{", b'{"yql": 5}', b'{"yql": "select"}', b"[1,2]", b'{"hits": "ten", "yql": "select * from comment where true"}']):
        requests.append((f"search POST body {i}", "POST", f"{CONTAINER}/search/", body, "application/json"))
    return requests


def oversized() -> list[tuple]:
    big = b'{"fields": {"article_id": "news-1", "text": "' + b"x" * (101 * 1024 * 1024) + b'"}}'
    return [("document of 101 MiB", "POST", NEW_DOC, big, "application/json")]


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def bad_deploys(application: Path) -> list[tuple]:
    files = {str(p.relative_to(application)): p.read_bytes() for p in application.rglob("*") if p.is_file()
             and "components" not in p.parts}
    without_services = {k: v for k, v in files.items() if k != "services.xml"}
    cases = {
        "missing services.xml": _zip(without_services),
        "empty zip": _zip({}),
        "not a zip": b"PK\x03\x04 this is not a zip file",
        "zip slip ../": _zip({**files, "../../../../tmp/dwell-zip-slip": b"owned"}),
        "zip slip in schemas": _zip({**files, "schemas/../../../dwell-zip-slip.sd": b"owned"}),
        "absolute path": _zip({**files, "/tmp/dwell-zip-slip-abs": b"owned"}),
        "services.xml not xml": _zip({**files, "services.xml": b"this is not xml <"}),
        "schema syntax error": _zip({**files, "schemas/comment.sd": b"schema comment { document comment { field x type nosuchtype { } } }"}),
        "unknown element in services.xml": _zip({**files, "services.xml": files["services.xml"].replace(b"<document-api/>", b"<document-apii/>")}),
        "empty body": b"",
        "more entries than any application has (50,001 empty files)": _zip({**files, **{f"files/{i}": b"" for i in range(50_001)}}),
    }
    return [(f"deploy: {name}", "POST", DEPLOY, body, "application/zip") for name, body in cases.items()]


# Requests that look malformed but that Vespa 8.700.24 itself accepts (read in its
# DocumentV1ApiHandler, JsonReader, TensorReader, ClusterSearcher and TensorParser): the runtime
# accepts them too. They act on documents of their own. (name, method, url, body, content type).
ACCEPTS_DOC = f"{CONTAINER}/document/v1/dwell/comment/docid/vespa-accepts"
ACCEPTS_MODEL = f"{CONTAINER}/document/v1/dwell/rankingmodel/docid/vespa-accepts"
ACCEPTS_ODD_ID = f"{CONTAINER}/document/v1/dwell/comment/docid/a/b/c/d"


def vespa_accepts() -> list[tuple]:
    def cell(x: str, value: float) -> dict:
        return {"address": {"x": x, "h1": "0"}, "value": value}

    search = f"{CONTAINER}/search/?"
    where = "select * from comment where true"
    increment = _json({"fields": {"upvotes": {"increment": 1}}})
    return [
        # the reader applies every operation given for a field, in order; an empty one is a no-op update
        ("update: two operations on one field", "PUT", ACCEPTS_DOC, _json({"fields": {"upvotes": {"increment": 2, "decrement": 1}}}), "application/json"),
        ("update: no operation on a field", "PUT", ACCEPTS_DOC, _json({"fields": {"upvotes": {}}}), "application/json"),
        # JsonReader ignores unknown top-level keys ("We ignore stray fields")
        ("put: unknown top-level key", "POST", ACCEPTS_DOC, _json({"fields": VALID_PUT["fields"], "extra": 1}), "application/json"),
        # the document id is the rest of the path, slashes included
        ("put: id with slashes", "POST", ACCEPTS_ODD_ID, _json(VALID_PUT), "application/json"),
        # create= is read with Boolean.parseBoolean: anything but "true" is false
        ("update: create=maybe", "PUT", ACCEPTS_DOC + "?create=maybe", increment, "application/json"),
        # fieldSet and timeChunk are not read for these operations
        ("update: fieldSet=nosuchtype:[all]", "PUT", ACCEPTS_DOC + "?fieldSet=nosuchtype:[all]", increment, "application/json"),
        ("visit: timeChunk=x", "GET", f"{CONTAINER}/document/v1/?cluster=dwell&timeChunk=x&wantedDocumentCount=1", None, None),
        # TensorReader fills a dense tensor by direct index, skipping array nesting; missing cells are 0
        ("tensor put: too few values", "POST", ACCEPTS_MODEL, _json({"fields": {"profile": "accepts", "W_0": {"values": [1.0] * 80}}}), "application/json"),
        ("tensor put: extra nesting", "POST", ACCEPTS_MODEL, _json({"fields": {"profile": "accepts", "W_0": {"values": [[[1.0] * 9] * 9]}}}), "application/json"),
        ("tensor put: short rows", "POST", ACCEPTS_MODEL, _json({"fields": {"profile": "accepts", "W_0": {"values": [[1.0] * 8] * 9}}}), "application/json"),
        # modify cells are read as a mapped tensor; cells outside the dense tensor change nothing
        ("tensor modify: negative index", "PUT", ACCEPTS_MODEL, _json({"fields": {"W_0": {"modify": {"operation": "replace", "cells": [cell("-1", 5.0)]}}}}), "application/json"),
        ("tensor modify: label on indexed", "PUT", ACCEPTS_MODEL, _json({"fields": {"W_0": {"modify": {"operation": "replace", "cells": [cell("a", 5.0)]}}}}), "application/json"),
        # the dense short form pads missing values with 0
        ("search: short dense query tensor", "GET", search + urllib.parse.urlencode({"yql": where, "ranking": "neural", "input.query(W_0)": "[1,2,3]"}), None, None),
        # ClusterSearcher keeps the restrict types it knows: none left is an empty result
        ("search: unknown restrict", "GET", search + urllib.parse.urlencode({"yql": where, "restrict": "nosuchdoctype"}), None, None),
    ]


def corpus(application: Path) -> list[tuple]:
    return (broken_json() + wrong_types() + unknown_fields() + invalid_ids() + bad_tensors() + bad_queries()
            + oversized() + bad_deploys(application))
