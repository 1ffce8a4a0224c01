# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kseg_global_optspecs
    string join \n no-progress h/help V/version
end

function __fish_kseg_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kseg_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kseg_using_subcommand
    set -l cmd (__fish_kseg_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kseg -n "__fish_kseg_needs_command" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_needs_command" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "dump-log" -d 'Decode segment, index, snapshot and checkpoint files like kafka-dump-log.sh'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "summary" -d 'One row per topic-partition: segments, offsets, records, timestamps, codecs, checkpoints'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "verify-index" -d 'Check logs and indexes after a crash; preview what Kafka\'s recovery would do'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "recover" -d 'Write a repaired copy of a partition: truncated like Kafka\'s recovery, indexes rebuilt'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "rescue" -d 'Produce the records of partitions or log dirs into a running Kafka cluster, exactly and resumably'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "groups" -d 'Rebuild every consumer group\'s committed offsets and state from __consumer_offsets'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "transactions" -d 'Transactional ids from __transaction_state, and open or hanging transactions in the data'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "diff" -d 'Replicas of the same partitions side by side: common prefix, divergence point, the records only one broker holds (what an unclean leader election lost)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "find-group-partition" -d 'Which __consumer_offsets (or __transaction_state) partition an id lives in'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "lookup" -d 'Offsets by timestamp, offset, earliest/latest or leader epoch, as the broker answers them'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "retention" -d 'What Kafka\'s next retention check deletes, and what blocks retention (a future timestamp, the high watermark, a disabled cleaner, fresh mtimes), from indexes alone'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "compact" -d 'The log cleaner\'s next pass over compacted partitions, previewed as Kafka 4.4 chooses and performs it: range, bound, dirty ratio, order, offset map end, what is removed'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "grep" -d 'Find records by value, key, header, time, offset or producer, pruning batches from their headers before anything is decompressed'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "export" -d 'Write records, batches and consumer-group offsets as a Parquet, Arrow or NDJSON dataset (Spark\'s Kafka source schema) that DuckDB, Spark, Polars and Trino read'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "mini-broker" -d 'Run an embedded single-node Kafka broker writing real segment files (or script one with `produce` and `commit`, no client needed)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l files -d 'Comma-separated files, as kafka-dump-log.sh takes them' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l max-bytes -d 'Only read batches lying completely inside the first N bytes of each log' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l max-messages -d 'Stop after N records (with --deep-iteration) or N batches of each log file' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l from-offset -d 'Only batches and records with offsets >= N' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l to-offset -d 'Only batches and records with offsets <= N' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l from-timestamp -d 'Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset, or in the zone of --tz); v2 batches whose maxTimestamp is below T are skipped from their header' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l to-timestamp -d 'Only records whose timestamp is at or before T (epoch ms, or RFC 3339: with an offset, or in the zone of --tz)' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l encoding -d 'How --json shows keys, values and header values: auto is a string when valid UTF-8 and {"base64": ...} otherwise (lossless)' -r -f -a "auto\t'A JSON string when the bytes are valid UTF-8, else `{"base64":"..."}`: lossless'
utf8\t'Always a string; invalid UTF-8 is replaced by U+FFFD (lossy)'
hex\t'Lowercase hex string'
base64\t'Standard Base64 with padding'"
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l key-decoder-class -d 'Kafka compatibility: accepted; keys and values print as text' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l value-decoder-class -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l split-bytes -d 'With --threads above 1, `.log` files larger than this are dumped in pieces of about this size, cut at batch boundaries [default: 2 MiB with records, 32 MiB headers only]' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l deep-iteration -d 'One line per record after each batch line'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l print-data-log -d 'Print record keys and values (implies --deep-iteration)'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l skip-record-metadata -d 'Do not print per-record metadata (and so no control-record details)'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l all-files -d 'With an offset or time range on a dir: dump every file of it (indexes, snapshots, checkpoints, segments outside the range), not only the segments that can hold the range'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l json -d 'NDJSON output, one object per line'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l verify-index-only -d 'For .index/.timeindex: check without printing entries'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l index-sanity-check -d 'For .index/.timeindex: run only Kafka\'s index sanity check'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l offsets-decoder -d 'Decode records as __consumer_offsets (group coordinator) records'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l transaction-log-decoder -d 'Decode records as __transaction_state records'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l cluster-metadata-decoder -d 'Decode records as KRaft __cluster_metadata records'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l share-group-state-decoder -d 'Decode records as __share_group_state records'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l remote-log-metadata-decoder -d 'Decode records as __remote_log_metadata records (tiered storage, written by TopicBasedRemoteLogMetadataManager)'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l raw -d 'Do not decode internal topics automatically from the partition directory name'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand dump-log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l topic -d 'Only topics matching the glob (\'*\', \'?\', \'[a-z]\'; repeatable: any of them)' -r
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l sort -d 'Row order: by topic and partition (name), or largest on disk first (bytes)' -r -f -a "name\t''
bytes\t''"
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l top -d 'Only the first N rows, after --sort (--sort bytes --top 10: what fills the disk)' -r
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l json -d 'NDJSON output: one "partition" object per row, then a "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand summary" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand summary" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l index-interval-bytes -d 'index.interval.bytes for every partition: where the recovery preview rebuilds index entries (and so whether non-increasing offsets make Kafka empty a segment) [default: each topic\'s from __cluster_metadata, else 4096]' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l split-bytes -d 'With --threads above 1, segments larger than this are read in pieces of about this size on the threads, replayed in order' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l index-only -d 'Skip per-batch CRC checks (like kafka-dump-log --verify-index-only)'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l sanity -d 'Only Kafka\'s own index sanity checks (like --index-sanity-check)'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l json -d 'NDJSON: "finding" objects, "recovery" objects, then one "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -s v -l verbose -d 'Also list info findings in the table (always present in --json)'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand verify-index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l out -d 'Where to write the repaired copy. A partition dir goes to NEWDIR/<topic>-<partition>, named as the input\'s so kseg and Kafka read it as that partition: NEWDIR must not exist, or be empty, or hold only other partition dirs (earlier repairs). A log dir becomes NEWDIR itself (a broker\'s log.dirs): it must not exist, or be empty' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l index-interval-bytes -d 'index.interval.bytes used to rebuild the indexes [default: the topic\'s from the log dir\'s __cluster_metadata, else 4096]' -r
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l salvage -d 'Keep the valid batches found after a corrupt region instead of dropping them (and the later segments Kafka would delete)'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l ignore-clean-shutdown -d 'Recover as Kafka does when the log dir has no .kafka_cleanshutdown: from each partition\'s recovery point (what it takes when a marker beside damage stops the broker)'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l force -d 'Write the copy of a log dir even when Kafka would refuse to start on the input (the copy then keeps the damage that stops it, and the exit code is 1)'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l json -d 'NDJSON report instead of text'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l bootstrap -d 'A broker of the target cluster (HOST:PORT; several comma-separated)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l topic-map -d 'Produce topic OLD as NEW (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l topic -d 'Only source topics matching GLOB (`*`, `?`, `[a-z]`; repeatable: any of them)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l exclude-topic -d 'Leave out source topics matching GLOB (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l partitioner -d 'Where each record goes: the source\'s partition number, or murmur2 of the key as the Java client\'s default partitioner does (records without a key keep their partition)' -r -f -a "same\t''
murmur2\t''"
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l from-offset -d 'First source offset to send (inclusive)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l to-offset -d 'Last source offset to send (inclusive)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l from-timestamp -d 'Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset, or in the zone of --tz)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l to-timestamp -d 'Only records whose timestamp is at or before T (epoch ms, or RFC 3339: with an offset, or in the zone of --tz)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l state -d 'Resume file: per source partition, the last offset the target acknowledged. A rerun with the same file goes on where the last one stopped, without duplicates' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l topic-config -d 'With --create-topics: set KEY=VALUE on the topics created, over the source\'s (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l skip-topic-config -d 'With --create-topics: leave KEY out of the configs taken from the source (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l offset-map -d 'Write the source→target offset map (offsets shift in the target: records not sent take no offset) to FILE: one JSON line per source partition, ranges [first source offset, last source offset, target partition, first target offset]. --state keeps it too' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l batch-bytes -d 'Largest batch the producer builds' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l linger-ms -d 'How long the producer waits to fill a batch' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l compression -d 'Compression of the produced batches' -r -f -a "none\t''
gzip\t''
snappy\t''
lz4\t''
zstd\t''"
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l max-records-per-second -d 'At most this many records per second (0: no limit), to spare a busy cluster' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l delivery-timeout-ms -d 'Give up on a record not acknowledged in this time, retries included' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l security-protocol -d 'plaintext, ssl, sasl_plaintext or sasl_ssl' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l sasl-mechanism -d 'PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l sasl-username -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l sasl-password-file -d 'A file holding the SASL password (or set KSEG_SASL_PASSWORD)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l ssl-ca -d 'PEM file of the CA certificates for the brokers\' TLS certificates' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l ssl-certificate -d 'PEM client certificate (mutual TLS)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l ssl-key -d 'PEM key of the client certificate' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l client-config -d 'Any other librdkafka client property (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l resend -d 'With --state: when the file does not describe the target (another cluster, a target topic deleted and created again, a partition ending before what was written), send every record again into the target as it is now instead of refusing; the file starts anew'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l dry-run -d 'Print what would be sent (counts, ranges, target partitions) and, when the cluster is reachable, what its topics would refuse or delete; send nothing'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l create-topics -d 'Create missing target topics with the source\'s partition count and the source topic\'s own configs (retention.ms, cleanup.policy, ...: its ConfigRecords in the __cluster_metadata of the source\'s log dir)'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l groups -d 'Translate every consumer group\'s committed offsets on the rescued partitions (replayed from the source\'s __consumer_offsets) through the offset map and commit them in the target after the records; with --dry-run print the translation only. A group with members in the target is refused, as Kafka refuses it'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l allow-retention-delete -d 'Send records although the target topic\'s retention.ms would delete them (their timestamps are older than it allows): without it such a rescue is refused'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l verify -d 'Read the target back after sending and compare every record with the source'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l json -d 'NDJSON report instead of text'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand rescue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l group -d 'Only these groups' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l offsets-retention-minutes -d 'The broker\'s offsets.retention.minutes, for EXPIRES-AT' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l at -d 'The instant the expired/expires-in-1d flags are computed for (epoch milliseconds, or RFC 3339: with an offset, or in the zone of --tz) [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l history -d 'Every commit in log order, with the commit record\'s own offset and timestamp'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l rebalances -d 'Every generation each group went through (group-metadata records in log order), what changed, and a verdict'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l json -d 'NDJSON: "offset" and "group" objects ("commit" with --history, "generation" and "rebalanceSummary" with --rebalances), then a "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l json -d 'NDJSON: "transactionalId" and "openTransaction" objects, then a "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l leader -d 'The path (as given) of the replica that leads; without it, the replica holding the newest leader epoch, or two candidate answers when the epochs cannot tell' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l topic -d 'Only these topics' -r
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l encoding -d 'How --json shows keys, values and header values' -r -f -a "auto\t'A JSON string when the bytes are valid UTF-8, else `{"base64":"..."}`: lossless'
utf8\t'Always a string; invalid UTF-8 is replaced by U+FFFD (lossy)'
hex\t'Lowercase hex string'
base64\t'Standard Base64 with padding'"
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, for awk and cut (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l print-data-log -d 'Print the records only one replica holds (like dump-log --print-data-log)'
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l json -d 'NDJSON: "replica", "divergence" and "partition" objects, the one-sided records as dump-log "batch"/"record" objects, then a "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand diff" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand find-group-partition" -l partitions -d 'Partition count of the coordinator topic [default: 50; with --log-dir, what its __cluster_metadata records]' -r
complete -c kseg -n "__fish_kseg_using_subcommand find-group-partition" -l log-dir -d 'Log dirs to look for the ids\' records in; their __cluster_metadata gives the partition count (a broker\'s partition dirs cannot: it holds only some of them)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand find-group-partition" -l transactional-id -d 'The ids are transactional ids: use __transaction_state'
complete -c kseg -n "__fish_kseg_using_subcommand find-group-partition" -l json -d 'NDJSON: {id, hashCode, partition, partitions, topic[, onDisk]}'
complete -c kseg -n "__fish_kseg_using_subcommand find-group-partition" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand find-group-partition" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l offset -d 'Where a fetch from offset O starts: segment, index entry, batch' -r
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l timestamp -d 'The first offset whose timestamp is >= T (offsetsForTimes): epoch milliseconds, or RFC 3339 with an offset (2024-03-09T14:00:00+08:00) or in the zone of --tz; -1/-2/-3 = latest/earliest/max timestamp. Several (T1,T2,... or the option repeated): one answer per partition and timestamp' -r
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l end-offset-for-epoch -d 'The end offset of leader epoch E (OffsetForLeaderEpoch), from leader-epoch-checkpoint checked against the batches\' partition leader epochs' -r
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l topic -d 'With a log dir as TARGET: the topic whose partitions to answer for' -r
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch' -r
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l earliest -d 'The log start offset (ListOffsets EARLIEST)'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l latest -d 'The log end offset (ListOffsets LATEST)'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l max-timestamp -d 'The record with the largest timestamp (ListOffsets MAX_TIMESTAMP)'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l json -d 'NDJSON: one {topic, partition, target, offset, timestamp, segment, position} per partition'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l explain -d 'Show the path taken: segment chosen and why, index entries, bytes and batches read'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l scan -d 'Also answer by scanning every record, ignoring the indexes. The answer shown stays the broker\'s; a different scan answer is a finding (`scanOffset`, exit 1)'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l print-data-log -d 'Also print the record found (its batch line and record line, as `dump-log --deep-iteration --print-data-log` prints them; a `batch` and a `match` object with --json)'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand lookup" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l now -d 'The instant of the check: epoch milliseconds, or RFC 3339 (with an offset, or in the zone of --tz) [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l config -d 'A broker config as server.properties sets it (log.retention.hours=72, log.retention.bytes=..., log.cleaner.enable=false, log.cleaner.dedupe.buffer.size=..., producer.id.expiration.ms=...), or a topic config meaning its broker-wide default (min.cleanable.dirty.ratio=0.1). Repeatable. A dynamic broker config in __cluster_metadata wins over it, as in Kafka' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l topic-config -d 'One topic\'s own config (retention.ms, retention.bytes, cleanup.policy, segment.bytes, delete.retention.ms, min.cleanable.dirty.ratio, min.compaction.lag.ms, ...). Repeatable. Wins over the topic\'s config in __cluster_metadata' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l topic-configs-file -d 'Topic configs saved from `kafka-configs.sh --describe --entity-type topics --all` (`All configs for topic T are:` then `  KEY=VALUE sensitive=... synonyms={...}` lines): a ZooKeeper-mode cluster keeps them in ZooKeeper, never in a log dir. --topic-config wins over it. Repeatable' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l format -d 'Tables fitted to the terminal (table), or tab-separated values with a header line and no other text, one row per segment (tsv)' -r -f -a "table\t'Box-drawn tables, fitted to the terminal when stdout is one'
tsv\t'Tab-separated values: a header line, then one line per row; no other text'"
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l json -d 'NDJSON: one "logDir" object per log dir, one "retention" object per partition, then a "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand retention" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand retention" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l now -d 'The instant of the pass: epoch milliseconds, or RFC 3339 (with an offset, or in the zone of --tz) [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l config -d 'A broker config as server.properties sets it (log.retention.hours=72, log.retention.bytes=..., log.cleaner.enable=false, log.cleaner.dedupe.buffer.size=..., producer.id.expiration.ms=...), or a topic config meaning its broker-wide default (min.cleanable.dirty.ratio=0.1). Repeatable. A dynamic broker config in __cluster_metadata wins over it, as in Kafka' -r
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l topic-config -d 'One topic\'s own config (retention.ms, retention.bytes, cleanup.policy, segment.bytes, delete.retention.ms, min.cleanable.dirty.ratio, min.compaction.lag.ms, ...). Repeatable. Wins over the topic\'s config in __cluster_metadata' -r
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l topic-configs-file -d 'Topic configs saved from `kafka-configs.sh --describe --entity-type topics --all` (`All configs for topic T are:` then `  KEY=VALUE sensitive=... synonyms={...}` lines): a ZooKeeper-mode cluster keeps them in ZooKeeper, never in a log dir. --topic-config wins over it. Repeatable' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l out -d 'Write the log dir (one log dir given) as Kafka leaves it after each partition\'s next pass into NEWDIR (new or empty): cleaned segments, indexes, mtimes, the cleaner-offset-checkpoint; the rest copied. The input is only read' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l json -d 'NDJSON: one "compaction" object per compacted partition'
complete -c kseg -n "__fish_kseg_using_subcommand compact" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand compact" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -s e -l regexp -d 'The value pattern (for a pattern starting with \'-\', or to give only paths)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l value-hex -d 'The value contains these bytes, given in hex (`-F` for binary: "1b5b33316d"; blanks, \':\' and a leading 0x are ignored)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l key -d 'Only records whose key is exactly K (the bytes of its UTF-8 text)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l key-hex -d 'Only records whose key is exactly these bytes, given in hex (a binary key: "00000000002a"; blanks, \':\' and a leading 0x are ignored)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l key-regex -d 'Only records whose key matches the regex R' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l header -d 'Only records with a header NAME, or NAME with exactly VALUE (repeatable: all must hold)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l header-hex -d 'Only records with a header NAME whose value is exactly these bytes, given in hex (repeatable: all must hold)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l json-field -d 'Only records whose value is a JSON document with the field PATH (names and array indexes separated by \'.\') equal to VALUE: a string equal to its text, or VALUE read as JSON (repeatable: all must hold)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l topic -d 'Only topics matching the glob (\'*\', \'?\', \'[a-z]\'; repeatable: any of them)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l partition -d 'Only these partition numbers (comma-separated or repeated)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l from-time -d 'Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset, or in the zone of --tz)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l to-time -d 'Only records whose timestamp is before T (half-open: [--from-time, --to-time))' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l from-offset -d 'Only records with offsets >= N' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l to-offset -d 'Only records with offsets <= N' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l producer-id -d 'Only records of batches written by this producer id (-1: without one)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l producer-epoch -d 'Only records of batches with this producer epoch (-1: without a producer id)' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l txn-state -d 'Only records in these transactional states (comma-separated or repeated)' -r -f -a "committed\t'In a transaction its COMMIT marker ended'
aborted\t'In a transaction Kafka\'s fetch reports aborted (the .txnindex)'
open\t'In a transaction with no COMMIT or ABORT marker after it'
non-transactional\t'Not in a transaction'"
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l partitioner -d 'With --key or --key-hex: search only the partition this partitioner maps the key to, over the topic\'s partition count (--partitions, else the log dir\'s __cluster_metadata). Records placed by another partitioner, an explicit partition or an older partition count are then missed [default: every partition is searched]' -r -f -a "murmur2\t'murmur2: the Java producer\'s default (and librdkafka\'s murmur2_random)'
crc32\t'CRC-32: librdkafka\'s default, consistent_random (confluent-kafka, kcat, and the other librdkafka clients)'
fnv1a\t'FNV-1a: sarama\'s default hash partitioner (and librdkafka\'s fnv1a_random)'"
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l partitions -d 'The partition count --partitioner maps the key over, for every topic searched [default: each topic\'s count in the log dir\'s __cluster_metadata]' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -s m -l max-count -d 'Stop after N matches per partition' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l encoding -d 'How --json shows keys, values and header values' -r -f -a "auto\t'A JSON string when the bytes are valid UTF-8, else `{"base64":"..."}`: lossless'
utf8\t'Always a string; invalid UTF-8 is replaced by U+FFFD (lossy)'
hex\t'Lowercase hex string'
base64\t'Standard Base64 with padding'"
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l threads -d 'Worker threads (files or partitions read in parallel; the output is the same as with --threads 1, which reads one at a time; at most 256) [default: the number of cores]' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l split-bytes -d 'With --threads above 1, segments larger than this are searched in pieces of about this size, cut at batch boundaries' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand grep" -s F -l fixed-strings -d 'The value pattern is a fixed string (memchr::memmem), not a regex'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l committed -d 'Only what a read_committed consumer is given: no aborted or open transaction, no control record, nothing at or after the last stable offset (the first open transaction)'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l control -d 'Only control records (transaction markers, KRaft control messages)'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l no-control -d 'No control records'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -s c -l count -d 'Print only a count of matches per partition, for the partitions with a match'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l include-zero -d 'With -c, also the partitions searched without a match (a count of 0)'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -s l -l files-with-matches -d 'Print only the segment files holding a match'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l print-batch -d 'Print the batch line (dump-log\'s) before the first match of each batch'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l json -d 'NDJSON: dump-log\'s "record" objects plus "topic" and "partition", then a "summary"'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l no-prune -d 'Decode every batch instead of skipping those whose header rules out a match'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l stats -d 'Counts on stderr at the end: matches, batches searched and pruned, records searched'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand grep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand export" -s o -l out -d 'The dataset\'s directory: created, or empty (never inside an input)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand export" -l format -d 'The tables\' file format' -r -f -a "parquet\t'Apache Parquet files'
arrow\t'Arrow IPC files (Feather v2)'
ndjson\t'One JSON object per line (binary columns in base64)'"
complete -c kseg -n "__fish_kseg_using_subcommand export" -l compression -d 'Parquet page compression' -r -f -a "none\t''
snappy\t''
zstd\t''"
complete -c kseg -n "__fish_kseg_using_subcommand export" -l tables -d 'The tables written (comma-separated or repeated). The offsets table takes --topic and --partition as the committed topic and partition, and no other filter' -r -f -a "records\t'One row per record'
batches\t'One row per batch'
offsets\t'Every __consumer_offsets offset commit and tombstone (as `groups --history` sees them)'"
complete -c kseg -n "__fish_kseg_using_subcommand export" -l row-group-rows -d 'Largest row group (Parquet) or record batch (Arrow), in rows' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l row-group-mib -d 'Largest row group, in MiB of buffered data: what bounds the memory an export takes' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -s e -l regexp -d 'The value pattern (for a pattern starting with \'-\', or to give only paths)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l value-hex -d 'The value contains these bytes, given in hex (`-F` for binary: "1b5b33316d"; blanks, \':\' and a leading 0x are ignored)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l key -d 'Only records whose key is exactly K (the bytes of its UTF-8 text)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l key-hex -d 'Only records whose key is exactly these bytes, given in hex (a binary key: "00000000002a"; blanks, \':\' and a leading 0x are ignored)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l key-regex -d 'Only records whose key matches the regex R' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l header -d 'Only records with a header NAME, or NAME with exactly VALUE (repeatable: all must hold)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l header-hex -d 'Only records with a header NAME whose value is exactly these bytes, given in hex (repeatable: all must hold)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l json-field -d 'Only records whose value is a JSON document with the field PATH (names and array indexes separated by \'.\') equal to VALUE: a string equal to its text, or VALUE read as JSON (repeatable: all must hold)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l topic -d 'Only topics matching the glob (\'*\', \'?\', \'[a-z]\'; repeatable: any of them)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l partition -d 'Only these partition numbers (comma-separated or repeated)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l from-time -d 'Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset, or in the zone of --tz)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l to-time -d 'Only records whose timestamp is before T (half-open: [--from-time, --to-time))' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l tz -d 'The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz Asia/Shanghai): local (the machine\'s), UTC, an offset (+08:00) or a zone name; grep also shows the records\' times in it [default: none: such a time is refused; times shown in UTC]' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l from-offset -d 'Only records with offsets >= N' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l to-offset -d 'Only records with offsets <= N' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l producer-id -d 'Only records of batches written by this producer id (-1: without one)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l producer-epoch -d 'Only records of batches with this producer epoch (-1: without a producer id)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l txn-state -d 'Only records in these transactional states (comma-separated or repeated)' -r -f -a "committed\t'In a transaction its COMMIT marker ended'
aborted\t'In a transaction Kafka\'s fetch reports aborted (the .txnindex)'
open\t'In a transaction with no COMMIT or ABORT marker after it'
non-transactional\t'Not in a transaction'"
complete -c kseg -n "__fish_kseg_using_subcommand export" -l max-decompressed-bytes -d 'Largest decompressed size accepted for one batch; larger batches are reported as errors' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -s F -l fixed-strings -d 'The value pattern is a fixed string (memchr::memmem), not a regex'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l committed -d 'Only what a read_committed consumer is given: no aborted or open transaction, no control record, nothing at or after the last stable offset (the first open transaction)'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l control -d 'Only control records (transaction markers, KRaft control messages)'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l no-control -d 'No control records'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l no-prune -d 'Decode every batch instead of skipping those whose header rules out a match'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l mmap -d 'Memory-map log files instead of reading them. Faster on offline copies; never use it on a live broker\'s data dir (a concurrent truncation kills kseg with SIGBUS)'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l log-dir -d 'The log dir (log.dirs); created when missing' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l num-partitions -d 'Partitions of auto-created topics (num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l segment-bytes -d 'Segment size before a roll (log.segment.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l segment-ms -d 'Roll a segment once its newest timestamp is this far past its first batch\'s (log.roll.ms / segment.ms; 7 days)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l index-interval-bytes -d 'Bytes between offset-index entries (log.index.interval.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l segment-index-bytes -d 'Preallocated size of an active segment\'s indexes (log.index.size.max.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l message-timestamp-type -d 'Record timestamps: the producer\'s, or the broker\'s append time' -r -f -a "CreateTime\t''
LogAppendTime\t''"
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l offsets-topic-partitions -d 'Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l transaction-state-log-num-partitions -d 'Partitions of __transaction_state (transaction.state.log.num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l max-message-bytes -d 'Largest record batch accepted (message.max.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l retention-ms -d 'Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1: no limit); topics override it with retention.ms' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l retention-bytes -d 'Delete the oldest segments while a partition stays above this size (log.retention.bytes; -1: no limit); topics override it with retention.bytes' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l retention-check-interval-ms -d 'How often retention runs (log.retention.check.interval.ms; the first check comes at most 30 s after start)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l file-delete-delay-ms -d 'How long deleted segments and partition dirs wait as .deleted/-delete before they go (log.segment.delete.delay.ms / file.delete.delay.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l group-initial-rebalance-delay-ms -d 'Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka\'s default is 3000)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l consumer-session-timeout-ms -d 'KIP-848 groups: fence a member silent this long (group.consumer.session.timeout.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l consumer-heartbeat-interval-ms -d 'KIP-848 groups: the heartbeat interval given to members (group.consumer.heartbeat.interval.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l consumer-assignment-interval-ms -d 'KIP-848 groups: the least time between two target assignments (group.consumer.assignment.interval.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l node-id -d 'This broker\'s id (node.id): 1 for a new log dir; an existing one keeps the node.id of its meta.properties, and a different ID is refused' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l listen -d 'Address to listen on; port 0 picks a free one (the chosen address is printed)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l advertised-host -d 'Host advertised to clients in Metadata and FindCoordinator' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l recover-in-place -d 'Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown: its broker crashed or is still running), recovering it in place like Kafka: torn segments are truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence (copy it first, or repair a copy with `kseg recover`)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l no-auto-create-topics -d 'Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -f -a "produce" -d 'Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -f -a "commit" -d 'Commit a group\'s offsets (a simple commit, as an assign()-ing consumer makes)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and not __fish_seen_subcommand_from produce commit help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l log-dir -d 'The log dir (log.dirs); created when missing' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l num-partitions -d 'Partitions of auto-created topics (num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l segment-bytes -d 'Segment size before a roll (log.segment.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l segment-ms -d 'Roll a segment once its newest timestamp is this far past its first batch\'s (log.roll.ms / segment.ms; 7 days)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l index-interval-bytes -d 'Bytes between offset-index entries (log.index.interval.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l segment-index-bytes -d 'Preallocated size of an active segment\'s indexes (log.index.size.max.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l message-timestamp-type -d 'Record timestamps: the producer\'s, or the broker\'s append time' -r -f -a "CreateTime\t''
LogAppendTime\t''"
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l offsets-topic-partitions -d 'Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l transaction-state-log-num-partitions -d 'Partitions of __transaction_state (transaction.state.log.num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l max-message-bytes -d 'Largest record batch accepted (message.max.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l retention-ms -d 'Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1: no limit); topics override it with retention.ms' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l retention-bytes -d 'Delete the oldest segments while a partition stays above this size (log.retention.bytes; -1: no limit); topics override it with retention.bytes' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l retention-check-interval-ms -d 'How often retention runs (log.retention.check.interval.ms; the first check comes at most 30 s after start)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l file-delete-delay-ms -d 'How long deleted segments and partition dirs wait as .deleted/-delete before they go (log.segment.delete.delay.ms / file.delete.delay.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l group-initial-rebalance-delay-ms -d 'Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka\'s default is 3000)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l consumer-session-timeout-ms -d 'KIP-848 groups: fence a member silent this long (group.consumer.session.timeout.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l consumer-heartbeat-interval-ms -d 'KIP-848 groups: the heartbeat interval given to members (group.consumer.heartbeat.interval.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l consumer-assignment-interval-ms -d 'KIP-848 groups: the least time between two target assignments (group.consumer.assignment.interval.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l node-id -d 'This broker\'s id (node.id): 1 for a new log dir; an existing one keeps the node.id of its meta.properties, and a different ID is refused' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l topic -d 'Topic to produce to' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l partitions -d 'Partitions of the topic if it has to be created [default: --num-partitions]' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l key-separator -d 'Split each line at the first SEP into key and value (kafka-console-producer\'s parse.key/key.separator); without it records have no key (sticky partitioning)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l compression -d 'Compression of each batch (compression.type)' -r -f -a "none\t''
gzip\t''
snappy\t''
lz4\t''
zstd\t''"
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l batch-size -d 'Most record bytes in one batch (batch.size)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l recover-in-place -d 'Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown: its broker crashed or is still running), recovering it in place like Kafka: torn segments are truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence (copy it first, or repair a copy with `kseg recover`)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l no-auto-create-topics -d 'Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l no-idempotence -d 'Write batches without a producer id (enable.idempotence=false); the Java producer is idempotent by default'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from produce" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l log-dir -d 'The log dir (log.dirs); created when missing' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l num-partitions -d 'Partitions of auto-created topics (num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l segment-bytes -d 'Segment size before a roll (log.segment.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l segment-ms -d 'Roll a segment once its newest timestamp is this far past its first batch\'s (log.roll.ms / segment.ms; 7 days)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l index-interval-bytes -d 'Bytes between offset-index entries (log.index.interval.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l segment-index-bytes -d 'Preallocated size of an active segment\'s indexes (log.index.size.max.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l message-timestamp-type -d 'Record timestamps: the producer\'s, or the broker\'s append time' -r -f -a "CreateTime\t''
LogAppendTime\t''"
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l offsets-topic-partitions -d 'Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l transaction-state-log-num-partitions -d 'Partitions of __transaction_state (transaction.state.log.num.partitions)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l max-message-bytes -d 'Largest record batch accepted (message.max.bytes)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l retention-ms -d 'Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1: no limit); topics override it with retention.ms' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l retention-bytes -d 'Delete the oldest segments while a partition stays above this size (log.retention.bytes; -1: no limit); topics override it with retention.bytes' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l retention-check-interval-ms -d 'How often retention runs (log.retention.check.interval.ms; the first check comes at most 30 s after start)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l file-delete-delay-ms -d 'How long deleted segments and partition dirs wait as .deleted/-delete before they go (log.segment.delete.delay.ms / file.delete.delay.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l group-initial-rebalance-delay-ms -d 'Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka\'s default is 3000)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l consumer-session-timeout-ms -d 'KIP-848 groups: fence a member silent this long (group.consumer.session.timeout.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l consumer-heartbeat-interval-ms -d 'KIP-848 groups: the heartbeat interval given to members (group.consumer.heartbeat.interval.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l consumer-assignment-interval-ms -d 'KIP-848 groups: the least time between two target assignments (group.consumer.assignment.interval.ms)' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l node-id -d 'This broker\'s id (node.id): 1 for a new log dir; an existing one keeps the node.id of its meta.properties, and a different ID is refused' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l group -d 'Group id' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l topic -d 'Topic of the offsets' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l metadata -d 'Metadata string stored with each offset' -r
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l recover-in-place -d 'Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown: its broker crashed or is still running), recovering it in place like Kafka: torn segments are truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence (copy it first, or repair a copy with `kseg recover`)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l no-auto-create-topics -d 'Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from commit" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from help" -f -a "produce" -d 'Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from help" -f -a "commit" -d 'Commit a group\'s offsets (a simple commit, as an assign()-ing consumer makes)'
complete -c kseg -n "__fish_kseg_using_subcommand mini-broker; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kseg -n "__fish_kseg_using_subcommand completions" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand completions" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand man" -l no-progress -d 'Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)'
complete -c kseg -n "__fish_kseg_using_subcommand man" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "dump-log" -d 'Decode segment, index, snapshot and checkpoint files like kafka-dump-log.sh'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "summary" -d 'One row per topic-partition: segments, offsets, records, timestamps, codecs, checkpoints'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "verify-index" -d 'Check logs and indexes after a crash; preview what Kafka\'s recovery would do'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "recover" -d 'Write a repaired copy of a partition: truncated like Kafka\'s recovery, indexes rebuilt'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "rescue" -d 'Produce the records of partitions or log dirs into a running Kafka cluster, exactly and resumably'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "groups" -d 'Rebuild every consumer group\'s committed offsets and state from __consumer_offsets'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "transactions" -d 'Transactional ids from __transaction_state, and open or hanging transactions in the data'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "diff" -d 'Replicas of the same partitions side by side: common prefix, divergence point, the records only one broker holds (what an unclean leader election lost)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "find-group-partition" -d 'Which __consumer_offsets (or __transaction_state) partition an id lives in'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "lookup" -d 'Offsets by timestamp, offset, earliest/latest or leader epoch, as the broker answers them'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "retention" -d 'What Kafka\'s next retention check deletes, and what blocks retention (a future timestamp, the high watermark, a disabled cleaner, fresh mtimes), from indexes alone'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "compact" -d 'The log cleaner\'s next pass over compacted partitions, previewed as Kafka 4.4 chooses and performs it: range, bound, dirty ratio, order, offset map end, what is removed'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "grep" -d 'Find records by value, key, header, time, offset or producer, pruning batches from their headers before anything is decompressed'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "export" -d 'Write records, batches and consumer-group offsets as a Parquet, Arrow or NDJSON dataset (Spark\'s Kafka source schema) that DuckDB, Spark, Polars and Trino read'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "mini-broker" -d 'Run an embedded single-node Kafka broker writing real segment files (or script one with `produce` and `commit`, no client needed)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "man" -d 'Print the man page (roff)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and __fish_seen_subcommand_from mini-broker" -f -a "produce" -d 'Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and __fish_seen_subcommand_from mini-broker" -f -a "commit" -d 'Commit a group\'s offsets (a simple commit, as an assign()-ing consumer makes)'
