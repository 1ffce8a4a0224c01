_kseg() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="kseg"
                ;;
            kseg,compact)
                cmd="kseg__subcmd__compact"
                ;;
            kseg,completions)
                cmd="kseg__subcmd__completions"
                ;;
            kseg,diff)
                cmd="kseg__subcmd__diff"
                ;;
            kseg,dump-log)
                cmd="kseg__subcmd__dump__subcmd__log"
                ;;
            kseg,export)
                cmd="kseg__subcmd__export"
                ;;
            kseg,find-group-partition)
                cmd="kseg__subcmd__find__subcmd__group__subcmd__partition"
                ;;
            kseg,grep)
                cmd="kseg__subcmd__grep"
                ;;
            kseg,groups)
                cmd="kseg__subcmd__groups"
                ;;
            kseg,help)
                cmd="kseg__subcmd__help"
                ;;
            kseg,lookup)
                cmd="kseg__subcmd__lookup"
                ;;
            kseg,man)
                cmd="kseg__subcmd__man"
                ;;
            kseg,mini-broker)
                cmd="kseg__subcmd__mini__subcmd__broker"
                ;;
            kseg,recover)
                cmd="kseg__subcmd__recover"
                ;;
            kseg,rescue)
                cmd="kseg__subcmd__rescue"
                ;;
            kseg,retention)
                cmd="kseg__subcmd__retention"
                ;;
            kseg,summary)
                cmd="kseg__subcmd__summary"
                ;;
            kseg,transactions)
                cmd="kseg__subcmd__transactions"
                ;;
            kseg,verify-index)
                cmd="kseg__subcmd__verify__subcmd__index"
                ;;
            kseg__subcmd__help,compact)
                cmd="kseg__subcmd__help__subcmd__compact"
                ;;
            kseg__subcmd__help,completions)
                cmd="kseg__subcmd__help__subcmd__completions"
                ;;
            kseg__subcmd__help,diff)
                cmd="kseg__subcmd__help__subcmd__diff"
                ;;
            kseg__subcmd__help,dump-log)
                cmd="kseg__subcmd__help__subcmd__dump__subcmd__log"
                ;;
            kseg__subcmd__help,export)
                cmd="kseg__subcmd__help__subcmd__export"
                ;;
            kseg__subcmd__help,find-group-partition)
                cmd="kseg__subcmd__help__subcmd__find__subcmd__group__subcmd__partition"
                ;;
            kseg__subcmd__help,grep)
                cmd="kseg__subcmd__help__subcmd__grep"
                ;;
            kseg__subcmd__help,groups)
                cmd="kseg__subcmd__help__subcmd__groups"
                ;;
            kseg__subcmd__help,help)
                cmd="kseg__subcmd__help__subcmd__help"
                ;;
            kseg__subcmd__help,lookup)
                cmd="kseg__subcmd__help__subcmd__lookup"
                ;;
            kseg__subcmd__help,man)
                cmd="kseg__subcmd__help__subcmd__man"
                ;;
            kseg__subcmd__help,mini-broker)
                cmd="kseg__subcmd__help__subcmd__mini__subcmd__broker"
                ;;
            kseg__subcmd__help,recover)
                cmd="kseg__subcmd__help__subcmd__recover"
                ;;
            kseg__subcmd__help,rescue)
                cmd="kseg__subcmd__help__subcmd__rescue"
                ;;
            kseg__subcmd__help,retention)
                cmd="kseg__subcmd__help__subcmd__retention"
                ;;
            kseg__subcmd__help,summary)
                cmd="kseg__subcmd__help__subcmd__summary"
                ;;
            kseg__subcmd__help,transactions)
                cmd="kseg__subcmd__help__subcmd__transactions"
                ;;
            kseg__subcmd__help,verify-index)
                cmd="kseg__subcmd__help__subcmd__verify__subcmd__index"
                ;;
            kseg__subcmd__help__subcmd__mini__subcmd__broker,commit)
                cmd="kseg__subcmd__help__subcmd__mini__subcmd__broker__subcmd__commit"
                ;;
            kseg__subcmd__help__subcmd__mini__subcmd__broker,produce)
                cmd="kseg__subcmd__help__subcmd__mini__subcmd__broker__subcmd__produce"
                ;;
            kseg__subcmd__mini__subcmd__broker,commit)
                cmd="kseg__subcmd__mini__subcmd__broker__subcmd__commit"
                ;;
            kseg__subcmd__mini__subcmd__broker,help)
                cmd="kseg__subcmd__mini__subcmd__broker__subcmd__help"
                ;;
            kseg__subcmd__mini__subcmd__broker,produce)
                cmd="kseg__subcmd__mini__subcmd__broker__subcmd__produce"
                ;;
            kseg__subcmd__mini__subcmd__broker__subcmd__help,commit)
                cmd="kseg__subcmd__mini__subcmd__broker__subcmd__help__subcmd__commit"
                ;;
            kseg__subcmd__mini__subcmd__broker__subcmd__help,help)
                cmd="kseg__subcmd__mini__subcmd__broker__subcmd__help__subcmd__help"
                ;;
            kseg__subcmd__mini__subcmd__broker__subcmd__help,produce)
                cmd="kseg__subcmd__mini__subcmd__broker__subcmd__help__subcmd__produce"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        kseg)
            opts="-h -V --no-progress --help --version dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__compact)
            opts="-h --now --tz --config --topic-config --topic-configs-file --json --out --threads --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic-configs-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__completions)
            opts="-h --no-progress --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__diff)
            opts="-h --leader --topic --print-data-log --json --encoding --format --mmap --max-decompressed-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --leader)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --encoding)
                    COMPREPLY=($(compgen -W "auto utf8 hex base64" -- "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__dump__subcmd__log)
            opts="-h --files --deep-iteration --print-data-log --skip-record-metadata --max-bytes --max-messages --from-offset --to-offset --from-timestamp --to-timestamp --tz --all-files --json --encoding --verify-index-only --index-sanity-check --offsets-decoder --transaction-log-decoder --cluster-metadata-decoder --share-group-state-decoder --remote-log-metadata-decoder --raw --key-decoder-class --value-decoder-class --mmap --max-decompressed-bytes --threads --split-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --files)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-messages)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-timestamp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-timestamp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --encoding)
                    COMPREPLY=($(compgen -W "auto utf8 hex base64" -- "${cur}"))
                    return 0
                    ;;
                --key-decoder-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --value-decoder-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --split-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__export)
            opts="-o -e -F -h --out --format --compression --tables --row-group-rows --row-group-mib --regexp --fixed-strings --value-hex --key --key-hex --key-regex --header --header-hex --json-field --topic --partition --from-time --to-time --tz --from-offset --to-offset --producer-id --producer-epoch --committed --txn-state --control --no-control --no-prune --mmap --max-decompressed-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "parquet arrow ndjson" -- "${cur}"))
                    return 0
                    ;;
                --compression)
                    COMPREPLY=($(compgen -W "none snappy zstd" -- "${cur}"))
                    return 0
                    ;;
                --tables)
                    COMPREPLY=($(compgen -W "records batches offsets" -- "${cur}"))
                    return 0
                    ;;
                --row-group-rows)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --row-group-mib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --regexp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --value-hex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-hex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-regex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header-hex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json-field)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --partition)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --producer-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --producer-epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --txn-state)
                    COMPREPLY=($(compgen -W "committed aborted open non-transactional" -- "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__find__subcmd__group__subcmd__partition)
            opts="-h --partitions --log-dir --transactional-id --json --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__grep)
            opts="-e -F -c -m -l -h --regexp --fixed-strings --value-hex --key --key-hex --key-regex --header --header-hex --json-field --topic --partition --from-time --to-time --tz --from-offset --to-offset --producer-id --producer-epoch --committed --txn-state --control --no-control --partitioner --partitions --count --include-zero --max-count --files-with-matches --print-batch --json --encoding --no-prune --stats --threads --split-bytes --mmap --max-decompressed-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --regexp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --value-hex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-hex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-regex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header-hex)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json-field)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --partition)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --producer-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --producer-epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --txn-state)
                    COMPREPLY=($(compgen -W "committed aborted open non-transactional" -- "${cur}"))
                    return 0
                    ;;
                --partitioner)
                    COMPREPLY=($(compgen -W "murmur2 crc32 fnv1a" -- "${cur}"))
                    return 0
                    ;;
                --partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --encoding)
                    COMPREPLY=($(compgen -W "auto utf8 hex base64" -- "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --split-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__groups)
            opts="-h --group --history --rebalances --offsets-retention-minutes --at --tz --json --format --mmap --max-decompressed-bytes --threads --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --offsets-retention-minutes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help)
            opts="dump-log summary verify-index recover rescue groups transactions diff find-group-partition lookup retention compact grep export mini-broker completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__compact)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__dump__subcmd__log)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__find__subcmd__group__subcmd__partition)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__grep)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__groups)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__lookup)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__mini__subcmd__broker)
            opts="produce commit"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__mini__subcmd__broker__subcmd__commit)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__mini__subcmd__broker__subcmd__produce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__recover)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__rescue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__retention)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__summary)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__transactions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__help__subcmd__verify__subcmd__index)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__lookup)
            opts="-h --offset --timestamp --tz --earliest --latest --max-timestamp --end-offset-for-epoch --topic --json --explain --scan --print-data-log --max-decompressed-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timestamp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --end-offset-for-epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__man)
            opts="-h --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker)
            opts="-h --log-dir --num-partitions --segment-bytes --segment-ms --index-interval-bytes --segment-index-bytes --message-timestamp-type --offsets-topic-partitions --transaction-state-log-num-partitions --max-message-bytes --retention-ms --retention-bytes --retention-check-interval-ms --file-delete-delay-ms --group-initial-rebalance-delay-ms --consumer-session-timeout-ms --consumer-heartbeat-interval-ms --consumer-assignment-interval-ms --node-id --recover-in-place --no-auto-create-topics --listen --advertised-host --no-progress --help produce commit help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --num-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --index-interval-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-index-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --message-timestamp-type)
                    COMPREPLY=($(compgen -W "CreateTime LogAppendTime" -- "${cur}"))
                    return 0
                    ;;
                --offsets-topic-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transaction-state-log-num-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-message-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-check-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file-delete-delay-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --group-initial-rebalance-delay-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-session-timeout-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-heartbeat-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-assignment-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --advertised-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker__subcmd__commit)
            opts="-h --log-dir --num-partitions --segment-bytes --segment-ms --index-interval-bytes --segment-index-bytes --message-timestamp-type --offsets-topic-partitions --transaction-state-log-num-partitions --max-message-bytes --retention-ms --retention-bytes --retention-check-interval-ms --file-delete-delay-ms --group-initial-rebalance-delay-ms --consumer-session-timeout-ms --consumer-heartbeat-interval-ms --consumer-assignment-interval-ms --node-id --recover-in-place --no-auto-create-topics --group --topic --metadata --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --num-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --index-interval-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-index-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --message-timestamp-type)
                    COMPREPLY=($(compgen -W "CreateTime LogAppendTime" -- "${cur}"))
                    return 0
                    ;;
                --offsets-topic-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transaction-state-log-num-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-message-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-check-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file-delete-delay-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --group-initial-rebalance-delay-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-session-timeout-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-heartbeat-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-assignment-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metadata)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker__subcmd__help)
            opts="produce commit help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker__subcmd__help__subcmd__commit)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker__subcmd__help__subcmd__produce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__mini__subcmd__broker__subcmd__produce)
            opts="-h --log-dir --num-partitions --segment-bytes --segment-ms --index-interval-bytes --segment-index-bytes --message-timestamp-type --offsets-topic-partitions --transaction-state-log-num-partitions --max-message-bytes --retention-ms --retention-bytes --retention-check-interval-ms --file-delete-delay-ms --group-initial-rebalance-delay-ms --consumer-session-timeout-ms --consumer-heartbeat-interval-ms --consumer-assignment-interval-ms --node-id --recover-in-place --no-auto-create-topics --topic --partitions --key-separator --compression --batch-size --no-idempotence --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --num-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --index-interval-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --segment-index-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --message-timestamp-type)
                    COMPREPLY=($(compgen -W "CreateTime LogAppendTime" -- "${cur}"))
                    return 0
                    ;;
                --offsets-topic-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transaction-state-log-num-partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-message-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retention-check-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file-delete-delay-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --group-initial-rebalance-delay-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-session-timeout-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-heartbeat-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --consumer-assignment-interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --partitions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-separator)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compression)
                    COMPREPLY=($(compgen -W "none gzip snappy lz4 zstd" -- "${cur}"))
                    return 0
                    ;;
                --batch-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__recover)
            opts="-h --out --salvage --index-interval-bytes --ignore-clean-shutdown --force --threads --json --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --index-interval-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__rescue)
            opts="-h --bootstrap --topic-map --topic --exclude-topic --partitioner --from-offset --to-offset --from-timestamp --to-timestamp --tz --state --resend --dry-run --create-topics --topic-config --skip-topic-config --offset-map --groups --allow-retention-delete --verify --batch-bytes --linger-ms --compression --max-records-per-second --delivery-timeout-ms --security-protocol --sasl-mechanism --sasl-username --sasl-password-file --ssl-ca --ssl-certificate --ssl-key --client-config --format --json --mmap --max-decompressed-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --bootstrap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic-map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --exclude-topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --partitioner)
                    COMPREPLY=($(compgen -W "same murmur2" -- "${cur}"))
                    return 0
                    ;;
                --from-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-timestamp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to-timestamp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-topic-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --offset-map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --batch-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --linger-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compression)
                    COMPREPLY=($(compgen -W "none gzip snappy lz4 zstd" -- "${cur}"))
                    return 0
                    ;;
                --max-records-per-second)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delivery-timeout-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --security-protocol)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sasl-mechanism)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sasl-username)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sasl-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ssl-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ssl-certificate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ssl-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --client-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__retention)
            opts="-h --now --tz --config --topic-config --topic-configs-file --json --format --threads --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topic-configs-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__summary)
            opts="-h --json --format --topic --sort --top --mmap --max-decompressed-bytes --threads --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                --topic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sort)
                    COMPREPLY=($(compgen -W "name bytes" -- "${cur}"))
                    return 0
                    ;;
                --top)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__transactions)
            opts="-h --json --format --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kseg__subcmd__verify__subcmd__index)
            opts="-v -h --index-only --sanity --index-interval-bytes --json --format --verbose --mmap --max-decompressed-bytes --threads --split-bytes --no-progress --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --index-interval-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table tsv" -- "${cur}"))
                    return 0
                    ;;
                --max-decompressed-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --split-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _kseg -o nosort -o bashdefault -o default kseg
else
    complete -F _kseg -o bashdefault -o default kseg
fi
