//! The `batches` table: one row per batch (a legacy v0/v1 message or wrapper counts as one),
//! its header fields, where it lies and whether its checksum holds.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use kseg_analysis::transactions::TxnState;
use kseg_format::log::BatchInfo;

use super::records::{micros, timestamp_type, timestamp_type_id, Place};
use super::ColumnPlan;

pub fn batches_schema() -> SchemaRef {
    let f = |name: &str, t: DataType| Field::new(name, t, true);
    Arc::new(Schema::new(vec![
        f("topic", DataType::Utf8),
        f("partition", DataType::Int32),
        f("baseOffset", DataType::Int64),
        f("lastOffset", DataType::Int64),
        f("count", DataType::Int32),
        f("magic", DataType::Int8),
        f("codec", DataType::Utf8),
        f("timestampType", DataType::Int32),
        f("firstTimestamp", timestamp_type()),
        f("maxTimestamp", timestamp_type()),
        f("producerId", DataType::Int64),
        f("producerEpoch", DataType::Int16),
        f("baseSequence", DataType::Int32),
        f("lastSequence", DataType::Int32),
        f("partitionLeaderEpoch", DataType::Int32),
        f("isTransactional", DataType::Boolean),
        f("isControl", DataType::Boolean),
        f("transaction", DataType::Utf8),
        f("deleteHorizon", timestamp_type()),
        f("crc", DataType::Int64),
        f("crcValid", DataType::Boolean),
        f("size", DataType::Int64),
        f("segment", DataType::Utf8),
        f("position", DataType::Int64),
        f("broker", DataType::Int32),
    ]))
}

pub(crate) fn batches_plan() -> ColumnPlan {
    ColumnPlan {
        dictionary: &[&["topic"], &["codec"], &["transaction"], &["segment"]],
        statistics: &[
            &["topic"],
            &["partition"],
            &["baseOffset"],
            &["lastOffset"],
            &["maxTimestamp"],
            &["producerId"],
            &["broker"],
        ],
    }
}

pub struct BatchesBuilder {
    schema: SchemaRef,
    topic: StringBuilder,
    partition: Int32Builder,
    base_offset: Int64Builder,
    last_offset: Int64Builder,
    count: Int32Builder,
    magic: Int8Builder,
    codec: StringBuilder,
    timestamp_type: Int32Builder,
    first_timestamp: TimestampMicrosecondBuilder,
    max_timestamp: TimestampMicrosecondBuilder,
    producer_id: Int64Builder,
    producer_epoch: Int16Builder,
    base_sequence: Int32Builder,
    last_sequence: Int32Builder,
    leader_epoch: Int32Builder,
    transactional: BooleanBuilder,
    control: BooleanBuilder,
    transaction: StringBuilder,
    delete_horizon: TimestampMicrosecondBuilder,
    crc: Int64Builder,
    crc_valid: BooleanBuilder,
    size: Int64Builder,
    segment: StringBuilder,
    position: Int64Builder,
    broker: Int32Builder,
    rows: usize,
    max_rows: usize,
}

impl BatchesBuilder {
    pub fn new(max_rows: usize) -> Self {
        BatchesBuilder {
            schema: batches_schema(),
            topic: StringBuilder::new(),
            partition: Int32Builder::new(),
            base_offset: Int64Builder::new(),
            last_offset: Int64Builder::new(),
            count: Int32Builder::new(),
            magic: Int8Builder::new(),
            codec: StringBuilder::new(),
            timestamp_type: Int32Builder::new(),
            first_timestamp: TimestampMicrosecondBuilder::new(),
            max_timestamp: TimestampMicrosecondBuilder::new(),
            producer_id: Int64Builder::new(),
            producer_epoch: Int16Builder::new(),
            base_sequence: Int32Builder::new(),
            last_sequence: Int32Builder::new(),
            leader_epoch: Int32Builder::new(),
            transactional: BooleanBuilder::new(),
            control: BooleanBuilder::new(),
            transaction: StringBuilder::new(),
            delete_horizon: TimestampMicrosecondBuilder::new(),
            crc: Int64Builder::new(),
            crc_valid: BooleanBuilder::new(),
            size: Int64Builder::new(),
            segment: StringBuilder::new(),
            position: Int64Builder::new(),
            broker: Int32Builder::new(),
            rows: 0,
            // Rows of a few dozen bytes: batches of a bounded count are small.
            max_rows: max_rows.clamp(1, 1 << 16),
        }
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    pub fn is_full(&self) -> bool {
        self.rows >= self.max_rows
    }

    pub fn push(&mut self, place: &Place, position: u64, b: &BatchInfo, state: Option<TxnState>) {
        self.topic.append_option(place.topic.as_deref());
        self.partition.append_option(place.partition);
        self.base_offset.append_value(b.base_offset);
        self.last_offset.append_value(b.last_offset);
        self.count.append_option(b.count);
        self.magic.append_value(b.magic);
        self.codec.append_value(b.codec.name());
        self.timestamp_type
            .append_value(timestamp_type_id(b.timestamp_type));
        self.first_timestamp.append_value(micros(b.first_timestamp));
        self.max_timestamp.append_value(micros(b.max_timestamp));
        self.producer_id.append_value(b.producer_id);
        self.producer_epoch.append_value(b.producer_epoch);
        self.base_sequence.append_value(b.base_sequence);
        self.last_sequence.append_value(b.last_sequence);
        self.leader_epoch.append_value(b.partition_leader_epoch);
        self.transactional.append_value(b.is_transactional);
        self.control.append_value(b.is_control);
        self.transaction.append_option(state.map(TxnState::name));
        self.delete_horizon
            .append_option(b.delete_horizon_ms.map(micros));
        self.crc.append_value(i64::from(b.crc));
        self.crc_valid.append_value(b.crc_valid);
        self.size.append_value(b.size as i64);
        self.segment.append_value(&place.segment);
        self.position
            .append_value(position.min(i64::MAX as u64) as i64);
        self.broker.append_option(place.broker);
        self.rows += 1;
    }

    pub fn finish(&mut self) -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.topic.finish()),
            Arc::new(self.partition.finish()),
            Arc::new(self.base_offset.finish()),
            Arc::new(self.last_offset.finish()),
            Arc::new(self.count.finish()),
            Arc::new(self.magic.finish()),
            Arc::new(self.codec.finish()),
            Arc::new(self.timestamp_type.finish()),
            Arc::new(self.first_timestamp.finish().with_timezone("UTC")),
            Arc::new(self.max_timestamp.finish().with_timezone("UTC")),
            Arc::new(self.producer_id.finish()),
            Arc::new(self.producer_epoch.finish()),
            Arc::new(self.base_sequence.finish()),
            Arc::new(self.last_sequence.finish()),
            Arc::new(self.leader_epoch.finish()),
            Arc::new(self.transactional.finish()),
            Arc::new(self.control.finish()),
            Arc::new(self.transaction.finish()),
            Arc::new(self.delete_horizon.finish().with_timezone("UTC")),
            Arc::new(self.crc.finish()),
            Arc::new(self.crc_valid.finish()),
            Arc::new(self.size.finish()),
            Arc::new(self.segment.finish()),
            Arc::new(self.position.finish()),
            Arc::new(self.broker.finish()),
        ];
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), columns).expect("columns match the schema")
    }
}
