//! The `records` table: one row per record, Spark's Kafka source schema first (so a query
//! written for `spark.readStream.format("kafka")` runs on it unchanged), then `kafka`, what only
//! the disk knows, and `broker`.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Int16Builder, Int32Builder, Int64Builder, Int8Builder,
    StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

use kseg_analysis::transactions::TxnState;
use kseg_format::batch::TimestampType;
use kseg_format::control::ControlRecord;
use kseg_format::log::{BatchInfo, LogRecord};
use kseg_format::reader::DecodeResult;

/// Spark's `TimestampType`: microseconds, adjusted to UTC.
pub(crate) fn timestamp_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// `struct<key string, value binary>`, a header (Spark's `headersType` element).
fn header_fields() -> Fields {
    Fields::from(vec![
        Field::new("key", DataType::Utf8, true),
        Field::new("value", DataType::Binary, true),
    ])
}

/// The list element of `headers` (nullable, as Spark's `ArrayType(...)` is by default).
fn header_item() -> Arc<Field> {
    Arc::new(Field::new(
        "element",
        DataType::Struct(header_fields()),
        true,
    ))
}

/// The `kafka` struct: the batch and file facts a consumer never sees.
fn kafka_fields() -> Fields {
    let f = |name: &str, t: DataType| Field::new(name, t, true);
    Fields::from(vec![
        f("batchBaseOffset", DataType::Int64),
        f("batchLastOffset", DataType::Int64),
        f("producerId", DataType::Int64),
        f("producerEpoch", DataType::Int16),
        f("baseSequence", DataType::Int32),
        f("sequence", DataType::Int32),
        f("partitionLeaderEpoch", DataType::Int32),
        f("isTransactional", DataType::Boolean),
        f("isControl", DataType::Boolean),
        f("controlType", DataType::Utf8),
        f("transaction", DataType::Utf8),
        f("codec", DataType::Utf8),
        f("magic", DataType::Int8),
        f("crcValid", DataType::Boolean),
        f("deleteHorizon", timestamp_type()),
        f("segment", DataType::Utf8),
        f("batchPosition", DataType::Int64),
    ])
}

/// The records table's schema. Every field nullable, as in Spark's (`StructField`'s default):
/// `StructType` equality compares nullability too.
pub fn records_schema() -> SchemaRef {
    let f = |name: &str, t: DataType| Field::new(name, t, true);
    Arc::new(Schema::new(vec![
        f("key", DataType::Binary),
        f("value", DataType::Binary),
        f("topic", DataType::Utf8),
        f("partition", DataType::Int32),
        f("offset", DataType::Int64),
        f("timestamp", timestamp_type()),
        f("timestampType", DataType::Int32),
        f("headers", DataType::List(header_item())),
        f("kafka", DataType::Struct(kafka_fields())),
        f("broker", DataType::Int32),
    ]))
}

/// Kafka's `TimestampType.id`, which Spark's source gives as `timestampType`.
pub(crate) fn timestamp_type_id(t: TimestampType) -> i32 {
    match t {
        TimestampType::NoTimestampType => -1,
        TimestampType::CreateTime => 0,
        TimestampType::LogAppendTime => 1,
    }
}

/// Epoch milliseconds as Spark's microseconds (saturating: a hostile timestamp stays a value).
pub(crate) fn micros(ms: i64) -> i64 {
    ms.saturating_mul(1000)
}

/// Where the rows being added come from: constant over one segment file.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub topic: Option<String>,
    pub partition: Option<i32>,
    pub broker: Option<i32>,
    pub segment: String,
}

/// The `kafka` struct's columns.
#[derive(Default)]
struct KafkaColumns {
    base_offset: Int64Builder,
    last_offset: Int64Builder,
    producer_id: Int64Builder,
    producer_epoch: Int16Builder,
    base_sequence: Int32Builder,
    sequence: Int32Builder,
    leader_epoch: Int32Builder,
    transactional: BooleanBuilder,
    control: BooleanBuilder,
    control_type: StringBuilder,
    transaction: StringBuilder,
    codec: StringBuilder,
    magic: Int8Builder,
    crc_valid: BooleanBuilder,
    delete_horizon: TimestampMicrosecondBuilder,
    segment: StringBuilder,
    batch_position: Int64Builder,
}

/// Rows of the records table being gathered, handed over as an Arrow batch when
/// [`RecordsBuilder::is_full`].
pub struct RecordsBuilder {
    schema: SchemaRef,
    key: BinaryBuilder,
    value: BinaryBuilder,
    topic: StringBuilder,
    partition: Int32Builder,
    offset: Int64Builder,
    timestamp: TimestampMicrosecondBuilder,
    timestamp_type: Int32Builder,
    header_keys: StringBuilder,
    header_values: BinaryBuilder,
    header_offsets: Vec<i32>,
    /// Headers in the batch being gathered (the end offset of the last record's).
    header_count: usize,
    headers_present: NullBufferBuilder,
    kafka: KafkaColumns,
    broker: Int32Builder,
    rows: usize,
    /// Key, value and header bytes gathered: the batch is handed over before it grows past
    /// the limit whatever the record sizes.
    bytes: usize,
    max_rows: usize,
    max_bytes: usize,
}

impl RecordsBuilder {
    pub fn new(max_rows: usize, max_bytes: usize) -> Self {
        RecordsBuilder {
            schema: records_schema(),
            key: BinaryBuilder::new(),
            value: BinaryBuilder::new(),
            topic: StringBuilder::new(),
            partition: Int32Builder::new(),
            offset: Int64Builder::new(),
            timestamp: TimestampMicrosecondBuilder::new(),
            timestamp_type: Int32Builder::new(),
            header_keys: StringBuilder::new(),
            header_values: BinaryBuilder::new(),
            header_offsets: vec![0],
            header_count: 0,
            headers_present: NullBufferBuilder::new(0),
            kafka: KafkaColumns::default(),
            broker: Int32Builder::new(),
            rows: 0,
            bytes: 0,
            max_rows: max_rows.max(1),
            max_bytes,
        }
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    pub fn is_full(&self) -> bool {
        self.rows >= self.max_rows || self.bytes >= self.max_bytes
    }

    /// Adds one record. `control` is a control record's decoded key, `state` its batch's
    /// transactional state.
    pub fn push(
        &mut self,
        place: &Place,
        batch_position: u64,
        info: &BatchInfo,
        r: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
        state: Option<TxnState>,
    ) {
        self.key.append_option(r.key);
        self.value.append_option(r.value);
        self.topic.append_option(place.topic.as_deref());
        self.partition.append_option(place.partition);
        self.offset.append_value(r.offset);
        self.timestamp.append_value(micros(r.timestamp));
        self.timestamp_type
            .append_value(timestamp_type_id(r.timestamp_type));
        let mut header_bytes = 0;
        if r.headers.count == 0 {
            // Spark's source gives null, not an empty list, for a record without headers.
            self.headers_present.append_null();
        } else {
            for h in r.headers.iter() {
                // Header keys are Java Strings: Kafka decodes them as UTF-8, replacing what
                // is not (`Utils.utf8`), as this does.
                self.header_keys
                    .append_value(String::from_utf8_lossy(h.key));
                self.header_values.append_option(h.value);
                self.header_count += 1;
                header_bytes += h.key.len() + h.value.map_or(0, <[u8]>::len);
            }
            self.headers_present.append_non_null();
        }
        self.header_offsets
            .push(self.header_count.min(i32::MAX as usize) as i32);
        let k = &mut self.kafka;
        k.base_offset.append_value(info.base_offset);
        k.last_offset.append_value(info.last_offset);
        k.producer_id.append_value(info.producer_id);
        k.producer_epoch.append_value(info.producer_epoch);
        k.base_sequence.append_value(info.base_sequence);
        k.sequence.append_option(r.sequence);
        k.leader_epoch.append_value(info.partition_leader_epoch);
        k.transactional.append_value(info.is_transactional);
        k.control.append_value(info.is_control);
        match control {
            Some(Ok(c)) => k.control_type.append_value(crate::control::type_name(c)),
            Some(Err(_)) => k.control_type.append_value("INVALID"),
            None => k.control_type.append_null(),
        }
        k.transaction.append_option(state.map(TxnState::name));
        k.codec.append_value(info.codec.name());
        k.magic.append_value(info.magic);
        // A legacy message carries its own checksum; a wrapper's inner message is valid only
        // inside a valid wrapper.
        let crc_valid = info.crc_valid && r.legacy.is_none_or(|l| l.valid);
        k.crc_valid.append_value(crc_valid);
        k.delete_horizon
            .append_option(info.delete_horizon_ms.map(micros));
        k.segment.append_value(&place.segment);
        k.batch_position
            .append_value(batch_position.min(i64::MAX as u64) as i64);
        self.broker.append_option(place.broker);
        self.rows += 1;
        self.bytes += r.key.map_or(0, <[u8]>::len) + r.value.map_or(0, <[u8]>::len) + header_bytes;
    }

    /// The rows gathered as one Arrow batch; the builder is empty again.
    pub fn finish(&mut self) -> RecordBatch {
        let timestamp = Arc::new(self.timestamp.finish().with_timezone("UTC")) as ArrayRef;
        let header_struct = StructArray::new(
            header_fields(),
            vec![
                Arc::new(self.header_keys.finish()) as ArrayRef,
                Arc::new(self.header_values.finish()),
            ],
            None,
        );
        let offsets = std::mem::replace(&mut self.header_offsets, vec![0]);
        self.header_count = 0;
        let headers = ListArray::new(
            header_item(),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            Arc::new(header_struct),
            self.headers_present.finish(),
        );
        let k = &mut self.kafka;
        let kafka = StructArray::new(
            kafka_fields(),
            vec![
                Arc::new(k.base_offset.finish()) as ArrayRef,
                Arc::new(k.last_offset.finish()),
                Arc::new(k.producer_id.finish()),
                Arc::new(k.producer_epoch.finish()),
                Arc::new(k.base_sequence.finish()),
                Arc::new(k.sequence.finish()),
                Arc::new(k.leader_epoch.finish()),
                Arc::new(k.transactional.finish()),
                Arc::new(k.control.finish()),
                Arc::new(k.control_type.finish()),
                Arc::new(k.transaction.finish()),
                Arc::new(k.codec.finish()),
                Arc::new(k.magic.finish()),
                Arc::new(k.crc_valid.finish()),
                Arc::new(k.delete_horizon.finish().with_timezone("UTC")),
                Arc::new(k.segment.finish()),
                Arc::new(k.batch_position.finish()),
            ],
            None,
        );
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.key.finish()),
            Arc::new(self.value.finish()),
            Arc::new(self.topic.finish()),
            Arc::new(self.partition.finish()),
            Arc::new(self.offset.finish()),
            timestamp,
            Arc::new(self.timestamp_type.finish()),
            Arc::new(headers),
            Arc::new(kafka),
            Arc::new(self.broker.finish()),
        ];
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(self.schema.clone(), columns).expect("columns match the schema")
    }
}
