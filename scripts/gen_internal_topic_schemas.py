#!/usr/bin/env python3
"""Generate the schema tables of ``src/format/coordinator/tables.rs`` from Kafka's JSON message specs.

Reads the message definitions (field names, types, versions, tags, defaults: format facts)
straight out of a local git mirror of Kafka and prints Rust ``static`` tables built with the
``const fn`` helpers of ``src/format/coordinator/schema.rs``. No Java is read or copied.

    scripts/gen_internal_topic_schemas.py [--repo PATH] [--splice src/format/coordinator/tables.rs]

With ``--splice`` the text between the ``// BEGIN GENERATED TABLES`` and
``// END GENERATED TABLES`` lines of the given file is replaced; otherwise the tables go to
stdout.

Sources (all pinned by commit):
* trunk ``d79bd502ec7fa49335afa422f442af80ed0ab8f6`` (Apache trunk, 2026-08-23, 4.5.0-SNAPSHOT):
  every group/transaction/share coordinator record, every KRaft metadata record, the tiered
  storage records of ``__remote_log_metadata`` and the two consumer-protocol messages embedded
  in GroupMetadataValue;
* record types that trunk no longer defines but released or pre-release brokers wrote:
  type 9 ShareGroupPartitionMetadata (Kafka 4.0, removed by KAFKA-17747) from ``82ea9d0f`` and
  type 18 StreamsGroupPartitionMetadata (trunk only, Dec 2024 - Jun 2025) from ``df93571f``;
* Kafka 4.0's incompatible "v0" layouts (branch ``4.0`` at ``c6f1e72e``) of ShareSnapshotValue,
  ShareUpdateValue, ShareGroupMetadataValue and ShareGroupStatePartitionMetadataValue.
"""

import argparse
import json
import re
import subprocess
import sys

TRUNK = "d79bd502ec7fa49335afa422f442af80ed0ab8f6"
SHARE_PARTITION_METADATA_REV = "82ea9d0fcef966cd91b982a1d52038e01bf8c974"
STREAMS_PARTITION_METADATA_REV = "df93571f503033c6b21034a1c815f7b21da96959"
KAFKA_4_0 = "c6f1e72e14db28ef0ec2ab1590e0e23bc8487794"

GROUP = "group-coordinator/src/main/resources/common/message/"
TXN = "transaction-coordinator/src/main/resources/common/message/"
SHARE = "share-coordinator/src/main/resources/common/message/"
METADATA = "metadata/src/main/resources/common/metadata/"
CLIENTS = "clients/src/main/resources/common/message/"
STORAGE = "storage/src/main/resources/message/"

PRIMS = {
    "bool": "Bool",
    "int8": "Int8",
    "int16": "Int16",
    "uint16": "Uint16",
    "uint32": "Uint32",
    "int32": "Int32",
    "int64": "Int64",
    "float64": "Float64",
    "string": "String",
    "bytes": "Bytes",
    "uuid": "Uuid",
    "records": "Records",
}
INTS = {"int8", "int16", "uint16", "uint32", "int32", "int64"}


def git_show(repo, rev, path):
    return subprocess.check_output(["git", "-C", repo, "show", f"{rev}:{path}"]).decode()


def git_ls(repo, rev, prefix):
    out = subprocess.check_output(["git", "-C", repo, "ls-tree", "--name-only", rev, prefix])
    return [p for p in out.decode().split("\n") if p.endswith(".json")]


def load(repo, rev, path):
    text = git_show(repo, rev, path)
    # Kafka's specs are JSON with // comments.
    lines = [l for l in text.split("\n") if not l.strip().startswith("//")]
    text = re.sub(r"//[^\n\"]*\n", "\n", "\n".join(lines))
    return json.loads(text)


def versions(s):
    """Kafka's Versions.parse: 'none', 'N', 'N+', 'A-B'."""
    s = (s or "").strip()
    if s in ("", "none"):
        return None
    if s.endswith("+"):
        return (int(s[:-1]), None)
    if "-" in s:
        a, b = s.split("-")
        return (int(a), int(b))
    return (int(s), int(s))


def rust_versions(v):
    if v is None:
        return "VNONE"
    lo, hi = v
    return f"vp({lo})" if hi is None else f"vr({lo}, {hi})"


def const_case(name):
    out = []
    prev_upper = True
    for c in name:
        if c.isupper():
            if not prev_upper:
                out.append("_")
            out.append(c)
            prev_upper = True
        else:
            out.append(c.upper())
            prev_upper = False
    return "".join(out)


def lower_first(name):
    return name[:1].lower() + name[1:]


def rust_str(s):
    return json.dumps(s)


class Emitter:
    def __init__(self):
        self.structs = []  # (static name, rust text)
        self.seen = set()

    def default(self, field, base):
        raw = field.get("default")
        if raw is None:
            d = ""
        elif isinstance(raw, bool):
            d = "true" if raw else "false"
        else:
            d = str(raw)
        if base in INTS:
            if d == "":
                return None
            n = int(d[2:], 16) if d.startswith("0x") else int(d)
            return f"FieldDefault::Int({n})"
        if base == "bool":
            if d == "":
                return None
            return f"FieldDefault::Bool({d.lower()})"
        if base == "float64":
            if d == "":
                return None
            return f"FieldDefault::Float({float(d)!r})"
        if base in ("string", "uuid"):
            if d == "null":
                return "FieldDefault::Null"
            if d == "":
                return None
            return f"FieldDefault::Str({rust_str(d)})"
        # bytes, records, arrays, structs: empty or null only
        return "FieldDefault::Null" if d == "null" else None

    def field(self, prefix, f, common):
        name = lower_first(f["name"])
        tagged = versions(f.get("taggedVersions"))
        vers = versions(f.get("versions", f.get("taggedVersions")))
        typ = f["type"]
        is_array = typ.startswith("[]")
        base = typ[2:] if is_array else typ
        if base in PRIMS:
            ty = f"Type::{'Array' if is_array else 'Prim'}(Prim::{PRIMS[base]})"
            default_base = "array" if is_array else base
        else:
            sfields = f.get("fields")
            sversions = f.get("versions", f.get("taggedVersions"))
            if sfields is None:
                cs = common[base]
                sfields, sversions = cs["fields"], cs.get("versions", "0+")
            static = self.struct(prefix, base, versions(sversions), sfields, common)
            ty = f"Type::{'StructArray' if is_array else 'Struct'}(&{static})"
            default_base = "array" if is_array else "struct"
        text = f"field({rust_str(name)}, {ty}, {rust_versions(vers)})"
        nullable = versions(f.get("nullableVersions"))
        if nullable is not None:
            text += f".nullable({rust_versions(nullable)})"
        if tagged is not None:
            text += f".tagged({rust_versions(tagged)}, {int(f['tag'])})"
        d = self.default(f, default_base)
        if d is not None:
            text += f".with_default({d})"
        return text

    def struct(self, prefix, name, vers, fields, common):
        static = f"{prefix}__{const_case(name)}"
        if static in self.seen:
            return static
        self.seen.add(static)
        body = self.fields(prefix, fields, common)
        self.structs.append(
            f"static {static}: Struct = Struct {{\n"
            f"    name: {rust_str(name)},\n"
            f"    versions: {rust_versions(vers)},\n"
            f"    fields: &[\n{body}    ],\n}};\n"
        )
        return static

    def fields(self, prefix, fields, common):
        return "".join(f"        {self.field(prefix, f, common)},\n" for f in fields)

    def message(self, spec, static, api_key, source, key=False):
        common = {c["name"]: c for c in spec.get("commonStructs", [])}
        valid = versions(spec["validVersions"])
        if key:
            # Keys are read whatever the 2-byte prefix says (the prefix is the record type; older
            # specs even used it as validVersions): decode them at version 0, non-flexible.
            valid = (0, 0)
            flexible = None

            def norm(fs):
                out = []
                for f in fs:
                    f = dict(f)
                    f["versions"] = "0+"
                    if "fields" in f:
                        f["fields"] = norm(f["fields"])
                    out.append(f)
                return out

            fields = norm(spec["fields"])
        else:
            flexible = versions(spec.get("flexibleVersions"))
            fields = spec["fields"]
        body = self.fields(static, fields, common)
        lo, hi = valid
        return (
            f"/// `{spec['name']}` ({source}).\n"
            f"pub static {static}: Message = Message {{\n"
            f"    name: {rust_str(spec['name'])},\n"
            f"    api_key: {api_key},\n"
            f"    valid: {rust_versions(valid)},\n"
            f"    flexible: {rust_versions(flexible)},\n"
            f"    root: Struct {{\n"
            f"        name: {rust_str(spec['name'])},\n"
            f"        versions: {rust_versions(valid)},\n"
            f"        fields: &[\n"
            + "".join("    " + l + "\n" for l in body.rstrip("\n").split("\n") if body)
            + "        ],\n    },\n};\n"
        )


def enum_name(name):
    # MessageGenerator.toSnakeCase(name).toUpperCase()
    out = []
    prev_upper = True
    for c in name:
        if c.isupper():
            if not prev_upper:
                out.append("_")
            out.append(c.lower())
            prev_upper = True
        else:
            out.append(c)
            prev_upper = False
    return "".join(out).upper()


def generate(repo):
    em = Emitter()
    messages = []
    out = []

    def msg(rev, path, static, key=False, api_key=None, source="trunk"):
        spec = load(repo, rev, path)
        ak = spec.get("apiKey", api_key) if api_key is None else api_key
        messages.append(em.message(spec, static, ak, source, key=key))
        return spec, ak

    # Group coordinator (__consumer_offsets): pairs by apiKey.
    group = {}
    for path in git_ls(repo, TRUNK, GROUP):
        name = path.rsplit("/", 1)[1][:-5]
        spec = load(repo, TRUNK, path)
        kind = spec["type"]
        group.setdefault(spec["apiKey"], {})[kind] = name
    rows = []
    for ak in sorted(group):
        k, v = group[ak]["coordinator-key"], group[ak]["coordinator-value"]
        msg(TRUNK, GROUP + k + ".json", const_case(k), key=True)
        msg(TRUNK, GROUP + v + ".json", const_case(v))
        rows.append((ak, const_case(k), const_case(v)))
    for rev, base, ak, source in (
        (SHARE_PARTITION_METADATA_REV, "ShareGroupPartitionMetadata", 9, "Kafka 4.0 only, commit 82ea9d0f"),
        (STREAMS_PARTITION_METADATA_REV, "StreamsGroupPartitionMetadata", 18,
         "pre-release trunk only, commit df93571f"),
    ):
        msg(rev, GROUP + base + "Key.json", const_case(base + "Key"), key=True, source=source)
        msg(rev, GROUP + base + "Value.json", const_case(base + "Value"), source=source)
        rows.append((ak, const_case(base + "Key"), const_case(base + "Value")))
    rows.sort()
    out.append(
        "/// `__consumer_offsets` record types: (type, key, value).\n"
        "pub static GROUP_RECORDS: &[(i16, &Message, &Message)] = &[\n"
        + "".join(f"    ({ak}, &{k}, &{v}),\n" for ak, k, v in rows)
        + "];\n"
    )

    # Kafka 4.0 layouts that later releases changed incompatibly inside "v0".
    legacy = []
    for path, name, ak, topic in (
        (GROUP, "ShareGroupMetadataValue", 11, "group"),
        (GROUP, "ShareGroupStatePartitionMetadataValue", 15, "group"),
        (SHARE, "ShareSnapshotValue", 0, "share"),
        (SHARE, "ShareUpdateValue", 1, "share"),
    ):
        static = const_case(name) + "_4_0"
        msg(KAFKA_4_0, path + name + ".json", static, api_key=ak, source="Kafka 4.0 layout, branch 4.0 at c6f1e72e")
        legacy.append((topic, ak, static))
    out.append(
        "/// Kafka 4.0 value layouts that 4.1 changed incompatibly without a version bump:\n"
        "/// (coordinator, record type, value), tried when the trunk layout does not fit.\n"
        "pub static LEGACY_4_0_VALUES: &[(&str, i16, &Message)] = &[\n"
        + "".join(f"    ({rust_str(t)}, {ak}, &{s}),\n" for t, ak, s in legacy)
        + "];\n"
    )

    # Transaction coordinator and share coordinator.
    for title, static_name, prefix in (
        ("`__transaction_state`", "TRANSACTION_RECORDS", TXN),
        ("`__share_group_state`", "SHARE_STATE_RECORDS", SHARE),
    ):
        pairs = {}
        for path in git_ls(repo, TRUNK, prefix):
            name = path.rsplit("/", 1)[1][:-5]
            spec = load(repo, TRUNK, path)
            pairs.setdefault(spec["apiKey"], {})[spec["type"]] = name
        rows = []
        for ak in sorted(pairs):
            k, v = pairs[ak]["coordinator-key"], pairs[ak]["coordinator-value"]
            msg(TRUNK, prefix + k + ".json", const_case(k), key=True)
            msg(TRUNK, prefix + v + ".json", const_case(v))
            rows.append((ak, const_case(k), const_case(v)))
        out.append(
            f"/// {title} record types: (type, key, value).\n"
            f"pub static {static_name}: &[(i16, &Message, &Message)] = &[\n"
            + "".join(f"    ({ak}, &{k}, &{v}),\n" for ak, k, v in rows)
            + "];\n"
        )

    # KRaft metadata records.
    rows = []
    for path in git_ls(repo, TRUNK, METADATA):
        spec = load(repo, TRUNK, path)
        static = const_case(spec["name"])
        msg(TRUNK, path, static)
        rows.append((spec["apiKey"], enum_name(spec["name"]), static))
    rows.sort()
    out.append(
        "/// `__cluster_metadata` record types: (apiKey, MetadataRecordType name, message).\n"
        "pub static METADATA_RECORDS: &[(i16, &str, &Message)] = &[\n"
        + "".join(f"    ({ak}, {rust_str(n)}, &{s}),\n" for ak, n, s in rows)
        + "];\n"
    )

    # Tiered storage: the records TopicBasedRemoteLogMetadataManager writes to
    # __remote_log_metadata, framed like KRaft metadata records.
    rows = []
    for path in git_ls(repo, TRUNK, STORAGE):
        spec = load(repo, TRUNK, path)
        if spec.get("type") != "metadata":
            continue
        static = const_case(spec["name"])
        msg(TRUNK, path, static)
        rows.append((spec["apiKey"], enum_name(spec["name"]), static))
    rows.sort()
    out.append(
        "/// `__remote_log_metadata` record types: (apiKey, record type name, message).\n"
        "pub static REMOTE_LOG_METADATA_RECORDS: &[(i16, &str, &Message)] = &[\n"
        + "".join(f"    ({ak}, {rust_str(n)}, &{s}),\n" for ak, n, s in rows)
        + "];\n"
    )

    # Consumer protocol, embedded in GroupMetadataValue members.
    msg(TRUNK, CLIENTS + "ConsumerProtocolSubscription.json", "CONSUMER_PROTOCOL_SUBSCRIPTION", api_key=-1)
    msg(TRUNK, CLIENTS + "ConsumerProtocolAssignment.json", "CONSUMER_PROTOCOL_ASSIGNMENT", api_key=-1)

    header = (
        f"// Generated by scripts/gen_internal_topic_schemas.py from Kafka's JSON message specs,\n"
        f"// pinned to Apache Kafka trunk commit {TRUNK} (4.5.0-SNAPSHOT)\n"
        f"// plus the historical layouts named on each table. Do not edit by hand.\n\n"
    )
    return header + "\n".join(out) + "\n" + "\n".join(messages) + "\n" + "\n".join(em.structs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", default="/work/.mirror/confluentinc+kafka/repo")
    ap.add_argument("--splice")
    args = ap.parse_args()
    text = generate(args.repo)
    if not args.splice:
        sys.stdout.write(text)
        return
    with open(args.splice) as f:
        src = f.read()
    begin, end = "// BEGIN GENERATED TABLES\n", "// END GENERATED TABLES\n"
    a, b = src.index(begin) + len(begin), src.index(end)
    with open(args.splice, "w") as f:
        f.write(src[:a] + text.rstrip("\n") + "\n" + src[b:])


if __name__ == "__main__":
    main()
