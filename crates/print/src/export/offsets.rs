//! The `offsets` table: every offset commit and offset tombstone of `__consumer_offsets`, in
//! log order, as `kseg groups --history` sees them (the groups replay's `CommitEvent`s), laid
//! out by the committed topic and partition so they join the records table on both.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use kseg_analysis::groups::CommitEvent;

use super::records::{micros, timestamp_type};
use super::ColumnPlan;

pub fn offsets_schema() -> SchemaRef {
    let f = |name: &str, t: DataType| Field::new(name, t, true);
    Arc::new(Schema::new(vec![
        f("group", DataType::Utf8),
        f("topic", DataType::Utf8),
        f("partition", DataType::Int32),
        f("offset", DataType::Int64),
        f("leaderEpoch", DataType::Int32),
        f("metadata", DataType::Utf8),
        f("commitTimestamp", timestamp_type()),
        f("expireTimestamp", timestamp_type()),
        f("tombstone", DataType::Boolean),
        f("producerId", DataType::Int64),
        f("transaction", DataType::Utf8),
        f("recordTimestamp", timestamp_type()),
        f("coordinatorPartition", DataType::Int32),
        f("recordOffset", DataType::Int64),
        f("broker", DataType::Int32),
    ]))
}

pub(crate) fn offsets_plan() -> ColumnPlan {
    ColumnPlan {
        dictionary: &[&["group"], &["topic"], &["transaction"]],
        statistics: &[
            &["group"],
            &["topic"],
            &["partition"],
            &["offset"],
            &["commitTimestamp"],
            &["broker"],
        ],
    }
}

pub struct OffsetsBuilder {
    schema: SchemaRef,
    group: StringBuilder,
    topic: StringBuilder,
    partition: Int32Builder,
    offset: Int64Builder,
    leader_epoch: Int32Builder,
    metadata: StringBuilder,
    commit_timestamp: TimestampMicrosecondBuilder,
    expire_timestamp: TimestampMicrosecondBuilder,
    tombstone: BooleanBuilder,
    producer_id: Int64Builder,
    transaction: StringBuilder,
    record_timestamp: TimestampMicrosecondBuilder,
    coordinator_partition: Int32Builder,
    record_offset: Int64Builder,
    broker: Int32Builder,
    rows: usize,
    max_rows: usize,
}

impl OffsetsBuilder {
    pub fn new(max_rows: usize) -> Self {
        OffsetsBuilder {
            schema: offsets_schema(),
            group: StringBuilder::new(),
            topic: StringBuilder::new(),
            partition: Int32Builder::new(),
            offset: Int64Builder::new(),
            leader_epoch: Int32Builder::new(),
            metadata: StringBuilder::new(),
            commit_timestamp: TimestampMicrosecondBuilder::new(),
            expire_timestamp: TimestampMicrosecondBuilder::new(),
            tombstone: BooleanBuilder::new(),
            producer_id: Int64Builder::new(),
            transaction: StringBuilder::new(),
            record_timestamp: TimestampMicrosecondBuilder::new(),
            coordinator_partition: Int32Builder::new(),
            record_offset: Int64Builder::new(),
            broker: Int32Builder::new(),
            rows: 0,
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

    pub fn push(&mut self, e: &CommitEvent, broker: Option<i32>) {
        self.group.append_value(&e.group);
        self.topic.append_value(&e.topic);
        self.partition.append_value(e.partition);
        self.offset.append_option(e.offset);
        self.leader_epoch.append_option(e.leader_epoch);
        self.metadata.append_option(e.metadata.as_deref());
        self.commit_timestamp
            .append_option(e.commit_timestamp.map(micros));
        self.expire_timestamp
            .append_option(e.expire_timestamp.map(micros));
        self.tombstone.append_value(e.offset.is_none());
        self.producer_id
            .append_option(e.transactional.map(|(p, _)| p));
        self.transaction
            .append_option(e.transactional.map(|(_, outcome)| outcome));
        self.record_timestamp
            .append_value(micros(e.record_timestamp));
        self.coordinator_partition
            .append_value(e.coordinator_partition);
        self.record_offset.append_value(e.record_offset);
        self.broker.append_option(broker);
        self.rows += 1;
    }

    pub fn finish(&mut self) -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.group.finish()),
            Arc::new(self.topic.finish()),
            Arc::new(self.partition.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.leader_epoch.finish()),
            Arc::new(self.metadata.finish()),
            Arc::new(self.commit_timestamp.finish().with_timezone("UTC")),
            Arc::new(self.expire_timestamp.finish().with_timezone("UTC")),
            Arc::new(self.tombstone.finish()),
            Arc::new(self.producer_id.finish()),
            Arc::new(self.transaction.finish()),
            Arc::new(self.record_timestamp.finish().with_timezone("UTC")),
            Arc::new(self.coordinator_partition.finish()),
            Arc::new(self.record_offset.finish()),
            Arc::new(self.broker.finish()),
        ];
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), columns).expect("columns match the schema")
    }
}
