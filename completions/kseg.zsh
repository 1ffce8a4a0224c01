#compdef kseg

autoload -U is-at-least

_kseg() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_kseg_commands" \
"*::: :->kseg" \
&& ret=0
    case $state in
    (kseg)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kseg-command-$line[1]:"
        case $line[1] in
            (dump-log)
_arguments "${_arguments_options[@]}" : \
'*--files=[Comma-separated files, as kafka-dump-log.sh takes them]:FILE,...:_files' \
'--max-bytes=[Only read batches lying completely inside the first N bytes of each log]:N:_default' \
'--max-messages=[Stop after N records (with --deep-iteration) or N batches of each log file]:N:_default' \
'--from-offset=[Only batches and records with offsets >= N]:N:_default' \
'--to-offset=[Only batches and records with offsets <= N]:N:_default' \
'--from-timestamp=[Only records whose timestamp is at or after T (epoch ms, or RFC 3339\: with an offset, or in the zone of --tz); v2 batches whose maxTimestamp is below T are skipped from their header]:T:_default' \
'--to-timestamp=[Only records whose timestamp is at or before T (epoch ms, or RFC 3339\: with an offset, or in the zone of --tz)]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'--encoding=[How --json shows keys, values and header values\: auto is a string when valid UTF-8 and {"base64"\: ...} otherwise (lossless)]:ENCODING:((auto\:"A JSON string when the bytes are valid UTF-8, else \`{"base64"\:"..."}\`\: lossless"
utf8\:"Always a string; invalid UTF-8 is replaced by U+FFFD (lossy)"
hex\:"Lowercase hex string"
base64\:"Standard Base64 with padding"))' \
'--key-decoder-class=[Kafka compatibility\: accepted; keys and values print as text]::KEY_DECODER_CLASS:_default' \
'--value-decoder-class=[]::VALUE_DECODER_CLASS:_default' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--split-bytes=[With --threads above 1, \`.log\` files larger than this are dumped in pieces of about this size, cut at batch boundaries \[default\: 2 MiB with records, 32 MiB headers only\]]:BYTES:_default' \
'--deep-iteration[One line per record after each batch line]' \
'--print-data-log[Print record keys and values (implies --deep-iteration)]' \
'--skip-record-metadata[Do not print per-record metadata (and so no control-record details)]' \
'--all-files[With an offset or time range on a dir\: dump every file of it (indexes, snapshots, checkpoints, segments outside the range), not only the segments that can hold the range]' \
'--json[NDJSON output, one object per line]' \
'--verify-index-only[For .index/.timeindex\: check without printing entries]' \
'--index-sanity-check[For .index/.timeindex\: run only Kafka'\''s index sanity check]' \
'--offsets-decoder[Decode records as __consumer_offsets (group coordinator) records]' \
'--transaction-log-decoder[Decode records as __transaction_state records]' \
'--cluster-metadata-decoder[Decode records as KRaft __cluster_metadata records]' \
'--share-group-state-decoder[Decode records as __share_group_state records]' \
'--remote-log-metadata-decoder[Decode records as __remote_log_metadata records (tiered storage, written by TopicBasedRemoteLogMetadataManager)]' \
'--raw[Do not decode internal topics automatically from the partition directory name]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Files, partition dirs or log dirs (any mix; several log dirs = JBOD):_files' \
&& ret=0
;;
(summary)
_arguments "${_arguments_options[@]}" : \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'*--topic=[Only topics matching the glob ('\''*'\'', '\''?'\'', '\''\[a-z\]'\''; repeatable\: any of them)]:GLOB:_default' \
'--sort=[Row order\: by topic and partition (name), or largest on disk first (bytes)]:SORT:(name bytes)' \
'--top=[Only the first N rows, after --sort (--sort bytes --top 10\: what fills the disk)]:N:_default' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--json[NDJSON output\: one "partition" object per row, then a "summary"]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Log dirs, partition dirs or segment files:_files' \
&& ret=0
;;
(verify-index)
_arguments "${_arguments_options[@]}" : \
'--index-interval-bytes=[index.interval.bytes for every partition\: where the recovery preview rebuilds index entries (and so whether non-increasing offsets make Kafka empty a segment) \[default\: each topic'\''s from __cluster_metadata, else 4096\]]:BYTES:_default' \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--split-bytes=[With --threads above 1, segments larger than this are read in pieces of about this size on the threads, replayed in order]:BYTES:_default' \
'--index-only[Skip per-batch CRC checks (like kafka-dump-log --verify-index-only)]' \
'--sanity[Only Kafka'\''s own index sanity checks (like --index-sanity-check)]' \
'--json[NDJSON\: "finding" objects, "recovery" objects, then one "summary"]' \
'-v[Also list info findings in the table (always present in --json)]' \
'--verbose[Also list info findings in the table (always present in --json)]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Files, partition dirs or log dirs:_files' \
&& ret=0
;;
(recover)
_arguments "${_arguments_options[@]}" : \
'--out=[Where to write the repaired copy. A partition dir goes to NEWDIR/<topic>-<partition>, named as the input'\''s so kseg and Kafka read it as that partition\: NEWDIR must not exist, or be empty, or hold only other partition dirs (earlier repairs). A log dir becomes NEWDIR itself (a broker'\''s log.dirs)\: it must not exist, or be empty]:NEWDIR:_files' \
'--index-interval-bytes=[index.interval.bytes used to rebuild the indexes \[default\: the topic'\''s from the log dir'\''s __cluster_metadata, else 4096\]]:BYTES:_default' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--salvage[Keep the valid batches found after a corrupt region instead of dropping them (and the later segments Kafka would delete)]' \
'--ignore-clean-shutdown[Recover as Kafka does when the log dir has no .kafka_cleanshutdown\: from each partition'\''s recovery point (what it takes when a marker beside damage stops the broker)]' \
'--force[Write the copy of a log dir even when Kafka would refuse to start on the input (the copy then keeps the damage that stops it, and the exit code is 1)]' \
'--json[NDJSON report instead of text]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
':partition -- The partition dir or log dir to repair (never modified):_files' \
&& ret=0
;;
(rescue)
_arguments "${_arguments_options[@]}" : \
'--bootstrap=[A broker of the target cluster (HOST\:PORT; several comma-separated)]:HOST:PORT:_default' \
'*--topic-map=[Produce topic OLD as NEW (repeatable)]:OLD:NEW:_default' \
'*--topic=[Only source topics matching GLOB (\`*\`, \`?\`, \`\[a-z\]\`; repeatable\: any of them)]:GLOB:_default' \
'*--exclude-topic=[Leave out source topics matching GLOB (repeatable)]:GLOB:_default' \
'--partitioner=[Where each record goes\: the source'\''s partition number, or murmur2 of the key as the Java client'\''s default partitioner does (records without a key keep their partition)]:PARTITIONER:(same murmur2)' \
'--from-offset=[First source offset to send (inclusive)]:OFFSET:_default' \
'--to-offset=[Last source offset to send (inclusive)]:OFFSET:_default' \
'--from-timestamp=[Only records whose timestamp is at or after T (epoch ms, or RFC 3339\: with an offset, or in the zone of --tz)]:T:_default' \
'--to-timestamp=[Only records whose timestamp is at or before T (epoch ms, or RFC 3339\: with an offset, or in the zone of --tz)]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'--state=[Resume file\: per source partition, the last offset the target acknowledged. A rerun with the same file goes on where the last one stopped, without duplicates]:FILE:_files' \
'*--topic-config=[With --create-topics\: set KEY=VALUE on the topics created, over the source'\''s (repeatable)]:KEY=VALUE:_default' \
'*--skip-topic-config=[With --create-topics\: leave KEY out of the configs taken from the source (repeatable)]:KEY:_default' \
'(--dry-run)--offset-map=[Write the source→target offset map (offsets shift in the target\: records not sent take no offset) to FILE\: one JSON line per source partition, ranges \[first source offset, last source offset, target partition, first target offset\]. --state keeps it too]:FILE:_files' \
'--batch-bytes=[Largest batch the producer builds]:BYTES:_default' \
'--linger-ms=[How long the producer waits to fill a batch]:MS:_default' \
'--compression=[Compression of the produced batches]:COMPRESSION:(none gzip snappy lz4 zstd)' \
'--max-records-per-second=[At most this many records per second (0\: no limit), to spare a busy cluster]:N:_default' \
'--delivery-timeout-ms=[Give up on a record not acknowledged in this time, retries included]:MS:_default' \
'--security-protocol=[plaintext, ssl, sasl_plaintext or sasl_ssl]:PROTOCOL:_default' \
'--sasl-mechanism=[PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512]:MECHANISM:_default' \
'--sasl-username=[]:USER:_default' \
'--sasl-password-file=[A file holding the SASL password (or set KSEG_SASL_PASSWORD)]:FILE:_files' \
'--ssl-ca=[PEM file of the CA certificates for the brokers'\'' TLS certificates]:FILE:_files' \
'--ssl-certificate=[PEM client certificate (mutual TLS)]:FILE:_files' \
'--ssl-key=[PEM key of the client certificate]:FILE:_files' \
'*--client-config=[Any other librdkafka client property (repeatable)]:KEY=VALUE:_default' \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'--resend[With --state\: when the file does not describe the target (another cluster, a target topic deleted and created again, a partition ending before what was written), send every record again into the target as it is now instead of refusing; the file starts anew]' \
'--dry-run[Print what would be sent (counts, ranges, target partitions) and, when the cluster is reachable, what its topics would refuse or delete; send nothing]' \
'--create-topics[Create missing target topics with the source'\''s partition count and the source topic'\''s own configs (retention.ms, cleanup.policy, ...\: its ConfigRecords in the __cluster_metadata of the source'\''s log dir)]' \
'--groups[Translate every consumer group'\''s committed offsets on the rescued partitions (replayed from the source'\''s __consumer_offsets) through the offset map and commit them in the target after the records; with --dry-run print the translation only. A group with members in the target is refused, as Kafka refuses it]' \
'--allow-retention-delete[Send records although the target topic'\''s retention.ms would delete them (their timestamps are older than it allows)\: without it such a rescue is refused]' \
'--verify[Read the target back after sending and compare every record with the source]' \
'--json[NDJSON report instead of text]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::sources -- Partition dirs or log dirs to read (never modified); internal topics (__*) of a log dir are left out unless their partition dir is given:_files' \
&& ret=0
;;
(groups)
_arguments "${_arguments_options[@]}" : \
'*--group=[Only these groups]:GROUP:_default' \
'--offsets-retention-minutes=[The broker'\''s offsets.retention.minutes, for EXPIRES-AT]:MINUTES:_default' \
'--at=[The instant the expired/expires-in-1d flags are computed for (epoch milliseconds, or RFC 3339\: with an offset, or in the zone of --tz) \[default\: now\]]:TIME:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--history[Every commit in log order, with the commit record'\''s own offset and timestamp]' \
'--rebalances[Every generation each group went through (group-metadata records in log order), what changed, and a verdict]' \
'--json[NDJSON\: "offset" and "group" objects ("commit" with --history, "generation" and "rebalanceSummary" with --rebalances), then a "summary"]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Log dirs holding __consumer_offsets (and the topics'\'' partitions, for the log end offsets):_files' \
&& ret=0
;;
(transactions)
_arguments "${_arguments_options[@]}" : \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'--json[NDJSON\: "transactionalId" and "openTransaction" objects, then a "summary"]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Log dirs holding __transaction_state and the data partitions:_files' \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
'--leader=[The path (as given) of the replica that leads; without it, the replica holding the newest leader epoch, or two candidate answers when the epochs cannot tell]:PATH:_files' \
'*--topic=[Only these topics]:TOPIC:_default' \
'--encoding=[How --json shows keys, values and header values]:ENCODING:((auto\:"A JSON string when the bytes are valid UTF-8, else \`{"base64"\:"..."}\`\: lossless"
utf8\:"Always a string; invalid UTF-8 is replaced by U+FFFD (lossy)"
hex\:"Lowercase hex string"
base64\:"Standard Base64 with padding"))' \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'--print-data-log[Print the records only one replica holds (like dump-log --print-data-log)]' \
'--json[NDJSON\: "replica", "divergence" and "partition" objects, the one-sided records as dump-log "batch"/"record" objects, then a "summary"]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Two or more log dirs, one per broker (or copies of one broker'\''s taken at different times), or two or more partition dirs of the same partition:_files' \
&& ret=0
;;
(find-group-partition)
_arguments "${_arguments_options[@]}" : \
'--partitions=[Partition count of the coordinator topic \[default\: 50; with --log-dir, what its __cluster_metadata records\]]:N:_default' \
'*--log-dir=[Log dirs to look for the ids'\'' records in; their __cluster_metadata gives the partition count (a broker'\''s partition dirs cannot\: it holds only some of them)]:DIR:_files' \
'--transactional-id[The ids are transactional ids\: use __transaction_state]' \
'--json[NDJSON\: {id, hashCode, partition, partitions, topic\[, onDisk\]}]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
'*::ids -- Group ids (or transactional ids with --transactional-id):_default' \
&& ret=0
;;
(lookup)
_arguments "${_arguments_options[@]}" : \
'--offset=[Where a fetch from offset O starts\: segment, index entry, batch]:O:_default' \
'*--timestamp=[The first offset whose timestamp is >= T (offsetsForTimes)\: epoch milliseconds, or RFC 3339 with an offset (2024-03-09T14\:00\:00+08\:00) or in the zone of --tz; -1/-2/-3 = latest/earliest/max timestamp. Several (T1,T2,... or the option repeated)\: one answer per partition and timestamp]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'--end-offset-for-epoch=[The end offset of leader epoch E (OffsetForLeaderEpoch), from leader-epoch-checkpoint checked against the batches'\'' partition leader epochs]:E:_default' \
'--topic=[With a log dir as TARGET\: the topic whose partitions to answer for]:NAME:_default' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch]:BYTES:_default' \
'--earliest[The log start offset (ListOffsets EARLIEST)]' \
'--latest[The log end offset (ListOffsets LATEST)]' \
'--max-timestamp[The record with the largest timestamp (ListOffsets MAX_TIMESTAMP)]' \
'--json[NDJSON\: one {topic, partition, target, offset, timestamp, segment, position} per partition]' \
'--explain[Show the path taken\: segment chosen and why, index entries, bytes and batches read]' \
'--scan[Also answer by scanning every record, ignoring the indexes. The answer shown stays the broker'\''s; a different scan answer is a finding (\`scanOffset\`, exit 1)]' \
'--print-data-log[Also print the record found (its batch line and record line, as \`dump-log --deep-iteration --print-data-log\` prints them; a \`batch\` and a \`match\` object with --json)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
':target -- A partition dir, or a log dir with --topic (one answer per partition):_files' \
&& ret=0
;;
(retention)
_arguments "${_arguments_options[@]}" : \
'--now=[The instant of the check\: epoch milliseconds, or RFC 3339 (with an offset, or in the zone of --tz) \[default\: now\]]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'*--config=[A broker config as server.properties sets it (log.retention.hours=72, log.retention.bytes=..., log.cleaner.enable=false, log.cleaner.dedupe.buffer.size=..., producer.id.expiration.ms=...), or a topic config meaning its broker-wide default (min.cleanable.dirty.ratio=0.1). Repeatable. A dynamic broker config in __cluster_metadata wins over it, as in Kafka]:KEY=VALUE:_default' \
'*--topic-config=[One topic'\''s own config (retention.ms, retention.bytes, cleanup.policy, segment.bytes, delete.retention.ms, min.cleanable.dirty.ratio, min.compaction.lag.ms, ...). Repeatable. Wins over the topic'\''s config in __cluster_metadata]:TOPIC:KEY=VALUE:_default' \
'*--topic-configs-file=[Topic configs saved from \`kafka-configs.sh --describe --entity-type topics --all\` (\`All configs for topic T are\:\` then \`  KEY=VALUE sensitive=... synonyms={...}\` lines)\: a ZooKeeper-mode cluster keeps them in ZooKeeper, never in a log dir. --topic-config wins over it. Repeatable]:FILE:_files' \
'(--json)--format=[Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, one row per segment (tsv)]:FORMAT:((table\:"Box-drawn tables, fitted to the terminal when stdout is one"
tsv\:"Tab-separated values\: a header line, then one line per row; no other text"))' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--json[NDJSON\: one "logDir" object per log dir, one "retention" object per partition, then a "summary"]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Log dirs or partition dirs (a partition dir is judged with its log dir'\''s checkpoints):_files' \
&& ret=0
;;
(compact)
_arguments "${_arguments_options[@]}" : \
'--now=[The instant of the pass\: epoch milliseconds, or RFC 3339 (with an offset, or in the zone of --tz) \[default\: now\]]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'*--config=[A broker config as server.properties sets it (log.retention.hours=72, log.retention.bytes=..., log.cleaner.enable=false, log.cleaner.dedupe.buffer.size=..., producer.id.expiration.ms=...), or a topic config meaning its broker-wide default (min.cleanable.dirty.ratio=0.1). Repeatable. A dynamic broker config in __cluster_metadata wins over it, as in Kafka]:KEY=VALUE:_default' \
'*--topic-config=[One topic'\''s own config (retention.ms, retention.bytes, cleanup.policy, segment.bytes, delete.retention.ms, min.cleanable.dirty.ratio, min.compaction.lag.ms, ...). Repeatable. Wins over the topic'\''s config in __cluster_metadata]:TOPIC:KEY=VALUE:_default' \
'*--topic-configs-file=[Topic configs saved from \`kafka-configs.sh --describe --entity-type topics --all\` (\`All configs for topic T are\:\` then \`  KEY=VALUE sensitive=... synonyms={...}\` lines)\: a ZooKeeper-mode cluster keeps them in ZooKeeper, never in a log dir. --topic-config wins over it. Repeatable]:FILE:_files' \
'--out=[Write the log dir (one log dir given) as Kafka leaves it after each partition'\''s next pass into NEWDIR (new or empty)\: cleaned segments, indexes, mtimes, the cleaner-offset-checkpoint; the rest copied. The input is only read]:NEWDIR:_files' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--json[NDJSON\: one "compaction" object per compacted partition]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
'*::paths -- Log dirs or partition dirs (a partition dir is judged with its log dir'\''s checkpoints):_files' \
&& ret=0
;;
(grep)
_arguments "${_arguments_options[@]}" : \
'-e+[The value pattern (for a pattern starting with '\''-'\'', or to give only paths)]:PATTERN:_default' \
'--regexp=[The value pattern (for a pattern starting with '\''-'\'', or to give only paths)]:PATTERN:_default' \
'(-e --regexp)--value-hex=[The value contains these bytes, given in hex (\`-F\` for binary\: "1b5b33316d"; blanks, '\''\:'\'' and a leading 0x are ignored)]:HEX:_default' \
'--key=[Only records whose key is exactly K (the bytes of its UTF-8 text)]:K:_default' \
'(--key)--key-hex=[Only records whose key is exactly these bytes, given in hex (a binary key\: "00000000002a"; blanks, '\''\:'\'' and a leading 0x are ignored)]:HEX:_default' \
'--key-regex=[Only records whose key matches the regex R]:R:_default' \
'*--header=[Only records with a header NAME, or NAME with exactly VALUE (repeatable\: all must hold)]:NAME[=VALUE]:_default' \
'*--header-hex=[Only records with a header NAME whose value is exactly these bytes, given in hex (repeatable\: all must hold)]:NAME=HEX:_default' \
'*--json-field=[Only records whose value is a JSON document with the field PATH (names and array indexes separated by '\''.'\'') equal to VALUE\: a string equal to its text, or VALUE read as JSON (repeatable\: all must hold)]:PATH=VALUE:_default' \
'*--topic=[Only topics matching the glob ('\''*'\'', '\''?'\'', '\''\[a-z\]'\''; repeatable\: any of them)]:GLOB:_default' \
'*--partition=[Only these partition numbers (comma-separated or repeated)]:N,...:_default' \
'--from-time=[Only records whose timestamp is at or after T (epoch ms, or RFC 3339\: with an offset, or in the zone of --tz)]:T:_default' \
'--to-time=[Only records whose timestamp is before T (half-open\: \[--from-time, --to-time))]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'--from-offset=[Only records with offsets >= N]:N:_default' \
'--to-offset=[Only records with offsets <= N]:N:_default' \
'--producer-id=[Only records of batches written by this producer id (-1\: without one)]:N:_default' \
'--producer-epoch=[Only records of batches with this producer epoch (-1\: without a producer id)]:N:_default' \
'*--txn-state=[Only records in these transactional states (comma-separated or repeated)]:STATE,...:((committed\:"In a transaction its COMMIT marker ended"
aborted\:"In a transaction Kafka'\''s fetch reports aborted (the .txnindex)"
open\:"In a transaction with no COMMIT or ABORT marker after it"
non-transactional\:"Not in a transaction"))' \
'--partitioner=[With --key or --key-hex\: search only the partition this partitioner maps the key to, over the topic'\''s partition count (--partitions, else the log dir'\''s __cluster_metadata). Records placed by another partitioner, an explicit partition or an older partition count are then missed \[default\: every partition is searched\]]:NAME:((murmur2\:"murmur2\: the Java producer'\''s default (and librdkafka'\''s murmur2_random)"
crc32\:"CRC-32\: librdkafka'\''s default, consistent_random (confluent-kafka, kcat, and the other librdkafka clients)"
fnv1a\:"FNV-1a\: sarama'\''s default hash partitioner (and librdkafka'\''s fnv1a_random)"))' \
'--partitions=[The partition count --partitioner maps the key over, for every topic searched \[default\: each topic'\''s count in the log dir'\''s __cluster_metadata\]]:N:_default' \
'-m+[Stop after N matches per partition]:N:_default' \
'--max-count=[Stop after N matches per partition]:N:_default' \
'--encoding=[How --json shows keys, values and header values]:ENCODING:((auto\:"A JSON string when the bytes are valid UTF-8, else \`{"base64"\:"..."}\`\: lossless"
utf8\:"Always a string; invalid UTF-8 is replaced by U+FFFD (lossy)"
hex\:"Lowercase hex string"
base64\:"Standard Base64 with padding"))' \
'--threads=[Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) \[default\: the number of cores\]]:N:_default' \
'--split-bytes=[With --threads above 1, segments larger than this are searched in pieces of about this size, cut at batch boundaries]:BYTES:_default' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'-F[The value pattern is a fixed string (memchr\:\:memmem), not a regex]' \
'--fixed-strings[The value pattern is a fixed string (memchr\:\:memmem), not a regex]' \
'(--control)--committed[Only what a read_committed consumer is given\: no aborted or open transaction, no control record, nothing at or after the last stable offset (the first open transaction)]' \
'(--no-control)--control[Only control records (transaction markers, KRaft control messages)]' \
'--no-control[No control records]' \
'-c[Print only a count of matches per partition, for the partitions with a match]' \
'--count[Print only a count of matches per partition, for the partitions with a match]' \
'--include-zero[With -c, also the partitions searched without a match (a count of 0)]' \
'(-c --count)-l[Print only the segment files holding a match]' \
'(-c --count)--files-with-matches[Print only the segment files holding a match]' \
'--print-batch[Print the batch line (dump-log'\''s) before the first match of each batch]' \
'--json[NDJSON\: dump-log'\''s "record" objects plus "topic" and "partition", then a "summary"]' \
'--no-prune[Decode every batch instead of skipping those whose header rules out a match]' \
'--stats[Counts on stderr at the end\: matches, batches searched and pruned, records searched]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::args -- \[PATTERN\] PATH...\: a regex over record values, then files, partition dirs or log dirs (as dump-log takes them). With -e or --value-hex every argument is a PATH; with another filter, so is a first argument that names an existing file or dir:_default' \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
'-o+[The dataset'\''s directory\: created, or empty (never inside an input)]:DIR:_files' \
'--out=[The dataset'\''s directory\: created, or empty (never inside an input)]:DIR:_files' \
'--format=[The tables'\'' file format]:FORMAT:((parquet\:"Apache Parquet files"
arrow\:"Arrow IPC files (Feather v2)"
ndjson\:"One JSON object per line (binary columns in base64)"))' \
'--compression=[Parquet page compression]:COMPRESSION:(none snappy zstd)' \
'*--tables=[The tables written (comma-separated or repeated). The offsets table takes --topic and --partition as the committed topic and partition, and no other filter]:TABLE,...:((records\:"One row per record"
batches\:"One row per batch"
offsets\:"Every __consumer_offsets offset commit and tombstone (as \`groups --history\` sees them)"))' \
'--row-group-rows=[Largest row group (Parquet) or record batch (Arrow), in rows]:N:_default' \
'--row-group-mib=[Largest row group, in MiB of buffered data\: what bounds the memory an export takes]:MIB:_default' \
'-e+[The value pattern (for a pattern starting with '\''-'\'', or to give only paths)]:PATTERN:_default' \
'--regexp=[The value pattern (for a pattern starting with '\''-'\'', or to give only paths)]:PATTERN:_default' \
'(-e --regexp)--value-hex=[The value contains these bytes, given in hex (\`-F\` for binary\: "1b5b33316d"; blanks, '\''\:'\'' and a leading 0x are ignored)]:HEX:_default' \
'--key=[Only records whose key is exactly K (the bytes of its UTF-8 text)]:K:_default' \
'(--key)--key-hex=[Only records whose key is exactly these bytes, given in hex (a binary key\: "00000000002a"; blanks, '\''\:'\'' and a leading 0x are ignored)]:HEX:_default' \
'--key-regex=[Only records whose key matches the regex R]:R:_default' \
'*--header=[Only records with a header NAME, or NAME with exactly VALUE (repeatable\: all must hold)]:NAME[=VALUE]:_default' \
'*--header-hex=[Only records with a header NAME whose value is exactly these bytes, given in hex (repeatable\: all must hold)]:NAME=HEX:_default' \
'*--json-field=[Only records whose value is a JSON document with the field PATH (names and array indexes separated by '\''.'\'') equal to VALUE\: a string equal to its text, or VALUE read as JSON (repeatable\: all must hold)]:PATH=VALUE:_default' \
'*--topic=[Only topics matching the glob ('\''*'\'', '\''?'\'', '\''\[a-z\]'\''; repeatable\: any of them)]:GLOB:_default' \
'*--partition=[Only these partition numbers (comma-separated or repeated)]:N,...:_default' \
'--from-time=[Only records whose timestamp is at or after T (epoch ms, or RFC 3339\: with an offset, or in the zone of --tz)]:T:_default' \
'--to-time=[Only records whose timestamp is before T (half-open\: \[--from-time, --to-time))]:T:_default' \
'--tz=[The zone a time given without an offset is read in (2024-03-09T14\:00\:00 --tz Asia/Shanghai)\: local (the machine'\''s), UTC, an offset (+08\:00) or a zone name; grep also shows the records'\'' times in it \[default\: none\: such a time is refused; times shown in UTC\]]:ZONE:_default' \
'--from-offset=[Only records with offsets >= N]:N:_default' \
'--to-offset=[Only records with offsets <= N]:N:_default' \
'--producer-id=[Only records of batches written by this producer id (-1\: without one)]:N:_default' \
'--producer-epoch=[Only records of batches with this producer epoch (-1\: without a producer id)]:N:_default' \
'*--txn-state=[Only records in these transactional states (comma-separated or repeated)]:STATE,...:((committed\:"In a transaction its COMMIT marker ended"
aborted\:"In a transaction Kafka'\''s fetch reports aborted (the .txnindex)"
open\:"In a transaction with no COMMIT or ABORT marker after it"
non-transactional\:"Not in a transaction"))' \
'--max-decompressed-bytes=[Largest decompressed size accepted for one batch; larger batches are reported as errors]:BYTES:_default' \
'-F[The value pattern is a fixed string (memchr\:\:memmem), not a regex]' \
'--fixed-strings[The value pattern is a fixed string (memchr\:\:memmem), not a regex]' \
'(--control)--committed[Only what a read_committed consumer is given\: no aborted or open transaction, no control record, nothing at or after the last stable offset (the first open transaction)]' \
'(--no-control)--control[Only control records (transaction markers, KRaft control messages)]' \
'--no-control[No control records]' \
'--no-prune[Decode every batch instead of skipping those whose header rules out a match]' \
'--mmap[Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker'\''s data dir (a concurrent truncation kills kseg with SIGBUS)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Segment files, partition dirs or log dirs (as dump-log takes them); never written:_files' \
&& ret=0
;;
(mini-broker)
_arguments "${_arguments_options[@]}" : \
'--log-dir=[The log dir (log.dirs); created when missing]:DIR:_files' \
'--num-partitions=[Partitions of auto-created topics (num.partitions)]:N:_default' \
'--segment-bytes=[Segment size before a roll (log.segment.bytes)]:BYTES:_default' \
'--segment-ms=[Roll a segment once its newest timestamp is this far past its first batch'\''s (log.roll.ms / segment.ms; 7 days)]:MS:_default' \
'--index-interval-bytes=[Bytes between offset-index entries (log.index.interval.bytes)]:BYTES:_default' \
'--segment-index-bytes=[Preallocated size of an active segment'\''s indexes (log.index.size.max.bytes)]:BYTES:_default' \
'--message-timestamp-type=[Record timestamps\: the producer'\''s, or the broker'\''s append time]:MESSAGE_TIMESTAMP_TYPE:(CreateTime LogAppendTime)' \
'--offsets-topic-partitions=[Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)]:N:_default' \
'--transaction-state-log-num-partitions=[Partitions of __transaction_state (transaction.state.log.num.partitions)]:N:_default' \
'--max-message-bytes=[Largest record batch accepted (message.max.bytes)]:BYTES:_default' \
'--retention-ms=[Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1\: no limit); topics override it with retention.ms]:MS:_default' \
'--retention-bytes=[Delete the oldest segments while a partition stays above this size (log.retention.bytes; -1\: no limit); topics override it with retention.bytes]:BYTES:_default' \
'--retention-check-interval-ms=[How often retention runs (log.retention.check.interval.ms; the first check comes at most 30 s after start)]:MS:_default' \
'--file-delete-delay-ms=[How long deleted segments and partition dirs wait as .deleted/-delete before they go (log.segment.delete.delay.ms / file.delete.delay.ms)]:MS:_default' \
'--group-initial-rebalance-delay-ms=[Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka'\''s default is 3000)]:MS:_default' \
'--consumer-session-timeout-ms=[KIP-848 groups\: fence a member silent this long (group.consumer.session.timeout.ms)]:MS:_default' \
'--consumer-heartbeat-interval-ms=[KIP-848 groups\: the heartbeat interval given to members (group.consumer.heartbeat.interval.ms)]:MS:_default' \
'--consumer-assignment-interval-ms=[KIP-848 groups\: the least time between two target assignments (group.consumer.assignment.interval.ms)]:MS:_default' \
'--node-id=[This broker'\''s id (node.id)\: 1 for a new log dir; an existing one keeps the node.id of its meta.properties, and a different ID is refused]:ID:_default' \
'--listen=[Address to listen on; port 0 picks a free one (the chosen address is printed)]:ADDR:_default' \
'--advertised-host=[Host advertised to clients in Metadata and FindCoordinator]:HOST:_default' \
'--recover-in-place[Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown\: its broker crashed or is still running), recovering it in place like Kafka\: torn segments are truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence (copy it first, or repair a copy with \`kseg recover\`)]' \
'--no-auto-create-topics[Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
":: :_kseg__subcmd__mini-broker_commands" \
"*::: :->mini-broker" \
&& ret=0

    case $state in
    (mini-broker)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kseg-mini-broker-command-$line[1]:"
        case $line[1] in
            (produce)
_arguments "${_arguments_options[@]}" : \
'--log-dir=[The log dir (log.dirs); created when missing]:DIR:_files' \
'--num-partitions=[Partitions of auto-created topics (num.partitions)]:N:_default' \
'--segment-bytes=[Segment size before a roll (log.segment.bytes)]:BYTES:_default' \
'--segment-ms=[Roll a segment once its newest timestamp is this far past its first batch'\''s (log.roll.ms / segment.ms; 7 days)]:MS:_default' \
'--index-interval-bytes=[Bytes between offset-index entries (log.index.interval.bytes)]:BYTES:_default' \
'--segment-index-bytes=[Preallocated size of an active segment'\''s indexes (log.index.size.max.bytes)]:BYTES:_default' \
'--message-timestamp-type=[Record timestamps\: the producer'\''s, or the broker'\''s append time]:MESSAGE_TIMESTAMP_TYPE:(CreateTime LogAppendTime)' \
'--offsets-topic-partitions=[Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)]:N:_default' \
'--transaction-state-log-num-partitions=[Partitions of __transaction_state (transaction.state.log.num.partitions)]:N:_default' \
'--max-message-bytes=[Largest record batch accepted (message.max.bytes)]:BYTES:_default' \
'--retention-ms=[Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1\: no limit); topics override it with retention.ms]:MS:_default' \
'--retention-bytes=[Delete the oldest segments while a partition stays above this size (log.retention.bytes; -1\: no limit); topics override it with retention.bytes]:BYTES:_default' \
'--retention-check-interval-ms=[How often retention runs (log.retention.check.interval.ms; the first check comes at most 30 s after start)]:MS:_default' \
'--file-delete-delay-ms=[How long deleted segments and partition dirs wait as .deleted/-delete before they go (log.segment.delete.delay.ms / file.delete.delay.ms)]:MS:_default' \
'--group-initial-rebalance-delay-ms=[Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka'\''s default is 3000)]:MS:_default' \
'--consumer-session-timeout-ms=[KIP-848 groups\: fence a member silent this long (group.consumer.session.timeout.ms)]:MS:_default' \
'--consumer-heartbeat-interval-ms=[KIP-848 groups\: the heartbeat interval given to members (group.consumer.heartbeat.interval.ms)]:MS:_default' \
'--consumer-assignment-interval-ms=[KIP-848 groups\: the least time between two target assignments (group.consumer.assignment.interval.ms)]:MS:_default' \
'--node-id=[This broker'\''s id (node.id)\: 1 for a new log dir; an existing one keeps the node.id of its meta.properties, and a different ID is refused]:ID:_default' \
'--topic=[Topic to produce to]:NAME:_default' \
'--partitions=[Partitions of the topic if it has to be created \[default\: --num-partitions\]]:N:_default' \
'--key-separator=[Split each line at the first SEP into key and value (kafka-console-producer'\''s parse.key/key.separator); without it records have no key (sticky partitioning)]:SEP:_default' \
'--compression=[Compression of each batch (compression.type)]:COMPRESSION:(none gzip snappy lz4 zstd)' \
'--batch-size=[Most record bytes in one batch (batch.size)]:BYTES:_default' \
'--recover-in-place[Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown\: its broker crashed or is still running), recovering it in place like Kafka\: torn segments are truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence (copy it first, or repair a copy with \`kseg recover\`)]' \
'--no-auto-create-topics[Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)]' \
'--no-idempotence[Write batches without a producer id (enable.idempotence=false); the Java producer is idempotent by default]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(commit)
_arguments "${_arguments_options[@]}" : \
'--log-dir=[The log dir (log.dirs); created when missing]:DIR:_files' \
'--num-partitions=[Partitions of auto-created topics (num.partitions)]:N:_default' \
'--segment-bytes=[Segment size before a roll (log.segment.bytes)]:BYTES:_default' \
'--segment-ms=[Roll a segment once its newest timestamp is this far past its first batch'\''s (log.roll.ms / segment.ms; 7 days)]:MS:_default' \
'--index-interval-bytes=[Bytes between offset-index entries (log.index.interval.bytes)]:BYTES:_default' \
'--segment-index-bytes=[Preallocated size of an active segment'\''s indexes (log.index.size.max.bytes)]:BYTES:_default' \
'--message-timestamp-type=[Record timestamps\: the producer'\''s, or the broker'\''s append time]:MESSAGE_TIMESTAMP_TYPE:(CreateTime LogAppendTime)' \
'--offsets-topic-partitions=[Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)]:N:_default' \
'--transaction-state-log-num-partitions=[Partitions of __transaction_state (transaction.state.log.num.partitions)]:N:_default' \
'--max-message-bytes=[Largest record batch accepted (message.max.bytes)]:BYTES:_default' \
'--retention-ms=[Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1\: no limit); topics override it with retention.ms]:MS:_default' \
'--retention-bytes=[Delete the oldest segments while a partition stays above this size (log.retention.bytes; -1\: no limit); topics override it with retention.bytes]:BYTES:_default' \
'--retention-check-interval-ms=[How often retention runs (log.retention.check.interval.ms; the first check comes at most 30 s after start)]:MS:_default' \
'--file-delete-delay-ms=[How long deleted segments and partition dirs wait as .deleted/-delete before they go (log.segment.delete.delay.ms / file.delete.delay.ms)]:MS:_default' \
'--group-initial-rebalance-delay-ms=[Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka'\''s default is 3000)]:MS:_default' \
'--consumer-session-timeout-ms=[KIP-848 groups\: fence a member silent this long (group.consumer.session.timeout.ms)]:MS:_default' \
'--consumer-heartbeat-interval-ms=[KIP-848 groups\: the heartbeat interval given to members (group.consumer.heartbeat.interval.ms)]:MS:_default' \
'--consumer-assignment-interval-ms=[KIP-848 groups\: the least time between two target assignments (group.consumer.assignment.interval.ms)]:MS:_default' \
'--node-id=[This broker'\''s id (node.id)\: 1 for a new log dir; an existing one keeps the node.id of its meta.properties, and a different ID is refused]:ID:_default' \
'--group=[Group id]:ID:_default' \
'--topic=[Topic of the offsets]:NAME:_default' \
'--metadata=[Metadata string stored with each offset]:TEXT:_default' \
'--recover-in-place[Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown\: its broker crashed or is still running), recovering it in place like Kafka\: torn segments are truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence (copy it first, or repair a copy with \`kseg recover\`)]' \
'--no-auto-create-topics[Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)]' \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
'*::offsets -- Offsets to commit\: PARTITION=OFFSET, where OFFSET may also be `earliest` or `latest`:_default' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_kseg__subcmd__mini-broker__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kseg-mini-broker-help-command-$line[1]:"
        case $line[1] in
            (produce)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(commit)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
;;
(completions)
_arguments "${_arguments_options[@]}" : \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
':shell:(bash elvish fish powershell zsh)' \
&& ret=0
;;
(man)
_arguments "${_arguments_options[@]}" : \
'--no-progress[Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)]' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_kseg__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kseg-help-command-$line[1]:"
        case $line[1] in
            (dump-log)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(summary)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(verify-index)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(recover)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(rescue)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(groups)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(transactions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(find-group-partition)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(lookup)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(retention)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(compact)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(grep)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(mini-broker)
_arguments "${_arguments_options[@]}" : \
":: :_kseg__subcmd__help__subcmd__mini-broker_commands" \
"*::: :->mini-broker" \
&& ret=0

    case $state in
    (mini-broker)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kseg-help-mini-broker-command-$line[1]:"
        case $line[1] in
            (produce)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(commit)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(completions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(man)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_kseg_commands] )) ||
_kseg_commands() {
    local commands; commands=(
'dump-log:Decode segment, index, snapshot and checkpoint files like kafka-dump-log.sh' \
'summary:One row per topic-partition\: segments, offsets, records, timestamps, codecs, checkpoints' \
'verify-index:Check logs and indexes after a crash; preview what Kafka'\''s recovery would do' \
'recover:Write a repaired copy of a partition\: truncated like Kafka'\''s recovery, indexes rebuilt' \
'rescue:Produce the records of partitions or log dirs into a running Kafka cluster, exactly and resumably' \
'groups:Rebuild every consumer group'\''s committed offsets and state from __consumer_offsets' \
'transactions:Transactional ids from __transaction_state, and open or hanging transactions in the data' \
'diff:Replicas of the same partitions side by side\: common prefix, divergence point, the records only one broker holds (what an unclean leader election lost)' \
'find-group-partition:Which __consumer_offsets (or __transaction_state) partition an id lives in' \
'lookup:Offsets by timestamp, offset, earliest/latest or leader epoch, as the broker answers them' \
'retention:What Kafka'\''s next retention check deletes, and what blocks retention (a future timestamp, the high watermark, a disabled cleaner, fresh mtimes), from indexes alone' \
'compact:The log cleaner'\''s next pass over compacted partitions, previewed as Kafka 4.4 chooses and performs it\: range, bound, dirty ratio, order, offset map end, what is removed' \
'grep:Find records by value, key, header, time, offset or producer, pruning batches from their headers before anything is decompressed' \
'export:Write records, batches and consumer-group offsets as a Parquet, Arrow or NDJSON dataset (Spark'\''s Kafka source schema) that DuckDB, Spark, Polars and Trino read' \
'mini-broker:Run an embedded single-node Kafka broker writing real segment files (or script one with \`produce\` and \`commit\`, no client needed)' \
'completions:Print a shell completion script' \
'man:Print the man page (roff)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kseg commands' commands "$@"
}
(( $+functions[_kseg__subcmd__compact_commands] )) ||
_kseg__subcmd__compact_commands() {
    local commands; commands=()
    _describe -t commands 'kseg compact commands' commands "$@"
}
(( $+functions[_kseg__subcmd__completions_commands] )) ||
_kseg__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'kseg completions commands' commands "$@"
}
(( $+functions[_kseg__subcmd__diff_commands] )) ||
_kseg__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'kseg diff commands' commands "$@"
}
(( $+functions[_kseg__subcmd__dump-log_commands] )) ||
_kseg__subcmd__dump-log_commands() {
    local commands; commands=()
    _describe -t commands 'kseg dump-log commands' commands "$@"
}
(( $+functions[_kseg__subcmd__export_commands] )) ||
_kseg__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'kseg export commands' commands "$@"
}
(( $+functions[_kseg__subcmd__find-group-partition_commands] )) ||
_kseg__subcmd__find-group-partition_commands() {
    local commands; commands=()
    _describe -t commands 'kseg find-group-partition commands' commands "$@"
}
(( $+functions[_kseg__subcmd__grep_commands] )) ||
_kseg__subcmd__grep_commands() {
    local commands; commands=()
    _describe -t commands 'kseg grep commands' commands "$@"
}
(( $+functions[_kseg__subcmd__groups_commands] )) ||
_kseg__subcmd__groups_commands() {
    local commands; commands=()
    _describe -t commands 'kseg groups commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help_commands] )) ||
_kseg__subcmd__help_commands() {
    local commands; commands=(
'dump-log:Decode segment, index, snapshot and checkpoint files like kafka-dump-log.sh' \
'summary:One row per topic-partition\: segments, offsets, records, timestamps, codecs, checkpoints' \
'verify-index:Check logs and indexes after a crash; preview what Kafka'\''s recovery would do' \
'recover:Write a repaired copy of a partition\: truncated like Kafka'\''s recovery, indexes rebuilt' \
'rescue:Produce the records of partitions or log dirs into a running Kafka cluster, exactly and resumably' \
'groups:Rebuild every consumer group'\''s committed offsets and state from __consumer_offsets' \
'transactions:Transactional ids from __transaction_state, and open or hanging transactions in the data' \
'diff:Replicas of the same partitions side by side\: common prefix, divergence point, the records only one broker holds (what an unclean leader election lost)' \
'find-group-partition:Which __consumer_offsets (or __transaction_state) partition an id lives in' \
'lookup:Offsets by timestamp, offset, earliest/latest or leader epoch, as the broker answers them' \
'retention:What Kafka'\''s next retention check deletes, and what blocks retention (a future timestamp, the high watermark, a disabled cleaner, fresh mtimes), from indexes alone' \
'compact:The log cleaner'\''s next pass over compacted partitions, previewed as Kafka 4.4 chooses and performs it\: range, bound, dirty ratio, order, offset map end, what is removed' \
'grep:Find records by value, key, header, time, offset or producer, pruning batches from their headers before anything is decompressed' \
'export:Write records, batches and consumer-group offsets as a Parquet, Arrow or NDJSON dataset (Spark'\''s Kafka source schema) that DuckDB, Spark, Polars and Trino read' \
'mini-broker:Run an embedded single-node Kafka broker writing real segment files (or script one with \`produce\` and \`commit\`, no client needed)' \
'completions:Print a shell completion script' \
'man:Print the man page (roff)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kseg help commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__compact_commands] )) ||
_kseg__subcmd__help__subcmd__compact_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help compact commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__completions_commands] )) ||
_kseg__subcmd__help__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help completions commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__diff_commands] )) ||
_kseg__subcmd__help__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help diff commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__dump-log_commands] )) ||
_kseg__subcmd__help__subcmd__dump-log_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help dump-log commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__export_commands] )) ||
_kseg__subcmd__help__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help export commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__find-group-partition_commands] )) ||
_kseg__subcmd__help__subcmd__find-group-partition_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help find-group-partition commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__grep_commands] )) ||
_kseg__subcmd__help__subcmd__grep_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help grep commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__groups_commands] )) ||
_kseg__subcmd__help__subcmd__groups_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help groups commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__help_commands] )) ||
_kseg__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help help commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__lookup_commands] )) ||
_kseg__subcmd__help__subcmd__lookup_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help lookup commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__man_commands] )) ||
_kseg__subcmd__help__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help man commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__mini-broker_commands] )) ||
_kseg__subcmd__help__subcmd__mini-broker_commands() {
    local commands; commands=(
'produce:Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)' \
'commit:Commit a group'\''s offsets (a simple commit, as an assign()-ing consumer makes)' \
    )
    _describe -t commands 'kseg help mini-broker commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__mini-broker__subcmd__commit_commands] )) ||
_kseg__subcmd__help__subcmd__mini-broker__subcmd__commit_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help mini-broker commit commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__mini-broker__subcmd__produce_commands] )) ||
_kseg__subcmd__help__subcmd__mini-broker__subcmd__produce_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help mini-broker produce commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__recover_commands] )) ||
_kseg__subcmd__help__subcmd__recover_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help recover commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__rescue_commands] )) ||
_kseg__subcmd__help__subcmd__rescue_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help rescue commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__retention_commands] )) ||
_kseg__subcmd__help__subcmd__retention_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help retention commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__summary_commands] )) ||
_kseg__subcmd__help__subcmd__summary_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help summary commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__transactions_commands] )) ||
_kseg__subcmd__help__subcmd__transactions_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help transactions commands' commands "$@"
}
(( $+functions[_kseg__subcmd__help__subcmd__verify-index_commands] )) ||
_kseg__subcmd__help__subcmd__verify-index_commands() {
    local commands; commands=()
    _describe -t commands 'kseg help verify-index commands' commands "$@"
}
(( $+functions[_kseg__subcmd__lookup_commands] )) ||
_kseg__subcmd__lookup_commands() {
    local commands; commands=()
    _describe -t commands 'kseg lookup commands' commands "$@"
}
(( $+functions[_kseg__subcmd__man_commands] )) ||
_kseg__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'kseg man commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker_commands] )) ||
_kseg__subcmd__mini-broker_commands() {
    local commands; commands=(
'produce:Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)' \
'commit:Commit a group'\''s offsets (a simple commit, as an assign()-ing consumer makes)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kseg mini-broker commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker__subcmd__commit_commands] )) ||
_kseg__subcmd__mini-broker__subcmd__commit_commands() {
    local commands; commands=()
    _describe -t commands 'kseg mini-broker commit commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker__subcmd__help_commands] )) ||
_kseg__subcmd__mini-broker__subcmd__help_commands() {
    local commands; commands=(
'produce:Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)' \
'commit:Commit a group'\''s offsets (a simple commit, as an assign()-ing consumer makes)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kseg mini-broker help commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker__subcmd__help__subcmd__commit_commands] )) ||
_kseg__subcmd__mini-broker__subcmd__help__subcmd__commit_commands() {
    local commands; commands=()
    _describe -t commands 'kseg mini-broker help commit commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker__subcmd__help__subcmd__help_commands] )) ||
_kseg__subcmd__mini-broker__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'kseg mini-broker help help commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker__subcmd__help__subcmd__produce_commands] )) ||
_kseg__subcmd__mini-broker__subcmd__help__subcmd__produce_commands() {
    local commands; commands=()
    _describe -t commands 'kseg mini-broker help produce commands' commands "$@"
}
(( $+functions[_kseg__subcmd__mini-broker__subcmd__produce_commands] )) ||
_kseg__subcmd__mini-broker__subcmd__produce_commands() {
    local commands; commands=()
    _describe -t commands 'kseg mini-broker produce commands' commands "$@"
}
(( $+functions[_kseg__subcmd__recover_commands] )) ||
_kseg__subcmd__recover_commands() {
    local commands; commands=()
    _describe -t commands 'kseg recover commands' commands "$@"
}
(( $+functions[_kseg__subcmd__rescue_commands] )) ||
_kseg__subcmd__rescue_commands() {
    local commands; commands=()
    _describe -t commands 'kseg rescue commands' commands "$@"
}
(( $+functions[_kseg__subcmd__retention_commands] )) ||
_kseg__subcmd__retention_commands() {
    local commands; commands=()
    _describe -t commands 'kseg retention commands' commands "$@"
}
(( $+functions[_kseg__subcmd__summary_commands] )) ||
_kseg__subcmd__summary_commands() {
    local commands; commands=()
    _describe -t commands 'kseg summary commands' commands "$@"
}
(( $+functions[_kseg__subcmd__transactions_commands] )) ||
_kseg__subcmd__transactions_commands() {
    local commands; commands=()
    _describe -t commands 'kseg transactions commands' commands "$@"
}
(( $+functions[_kseg__subcmd__verify-index_commands] )) ||
_kseg__subcmd__verify-index_commands() {
    local commands; commands=()
    _describe -t commands 'kseg verify-index commands' commands "$@"
}

if [ "$funcstack[1]" = "_kseg" ]; then
    _kseg "$@"
else
    compdef _kseg kseg
fi
