//! A summary as Arrow record batches (docs/summary.md, *Arrow / Parquet*):
//! one row per problem, the columns of the JSON Lines rows, the header JSON
//! in the schema metadata under `rollstat_summary`. The Parquet file, the
//! Python table and anything an engine emits in these columns are the same
//! table.
//!
//! Writing gives exactly [`summary_schema`]. Reading is lenient about the
//! physical types another writer may pick (large or view strings, large
//! lists, any integer width, 32-bit floats) and about absent columns (null,
//! as an absent JSON key), strict about values: every row is checked as a
//! JSON Lines row is, and an error names the source and the row.

use crate::error::{Error, Result};
use crate::summary::{check_row, header_json, parse_header, Summary, SummaryRow};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// The schema metadata key holding the header JSON.
pub const HEADER_KEY: &str = "rollstat_summary";

/// Problems per record batch written.
pub const BATCH_ROWS: usize = 8192;

fn list_of(t: DataType) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(t, true)))
}

/// The columns of a summary table, in order, without metadata: strings,
/// unsigned counts, and lists (`index`, `truncated`: `list<uint64>`;
/// `answers`: `list<string>`; `answer`: `list<int64>`; `score`, `budget`:
/// `list<float64>`); every column nullable (null: the JSON key absent).
///
/// ```
/// let s = rollstat::summary_schema();
/// assert_eq!(s.field(0).name(), "system");
/// assert_eq!(s.fields().len(), 16);
/// ```
pub fn summary_schema() -> Schema {
    use DataType::*;
    let f = |name: &str, t: DataType| Field::new(name, t, true);
    Schema::new(vec![
        f("system", Utf8),
        f("subset", Utf8),
        f("problem", Utf8),
        f("by", Utf8),
        f("cluster", Utf8),
        f("origin", Utf8),
        f("n", UInt64),
        f("c", UInt64),
        f("index", list_of(UInt64)),
        f("verdicts", Utf8),
        f("answers", list_of(Utf8)),
        f("answer", list_of(Int64)),
        f("truncated", list_of(UInt64)),
        f("score", list_of(Float64)),
        f("budget", list_of(Float64)),
        f("numbered_by_arrival", Boolean),
    ])
}

/// One builder per column of [`summary_schema`].
#[derive(Default)]
struct Builders {
    system: StringBuilder,
    subset: StringBuilder,
    problem: StringBuilder,
    by: StringBuilder,
    cluster: StringBuilder,
    origin: StringBuilder,
    n: UInt64Builder,
    c: UInt64Builder,
    index: ListBuilder<UInt64Builder>,
    verdicts: StringBuilder,
    answers: ListBuilder<StringBuilder>,
    answer: ListBuilder<Int64Builder>,
    truncated: ListBuilder<UInt64Builder>,
    score: ListBuilder<Float64Builder>,
    budget: ListBuilder<Float64Builder>,
    numbered_by_arrival: BooleanBuilder,
}

/// Appends a list, or a null for an empty one (the key the JSON row omits).
fn push_list<B, T>(b: &mut ListBuilder<B>, items: &[T], mut push: impl FnMut(&mut B, &T))
where
    B: arrow_array::builder::ArrayBuilder,
{
    if items.is_empty() {
        b.append_null();
        return;
    }
    for x in items {
        push(b.values(), x);
    }
    b.append(true);
}

impl Builders {
    fn push(&mut self, r: &SummaryRow) {
        self.system.append_option(r.system.as_deref());
        self.subset.append_option(r.subset.as_deref());
        self.problem.append_value(&r.problem);
        self.by.append_option(r.by.as_deref());
        self.cluster.append_option(r.cluster.as_deref());
        self.origin.append_value(&r.origin);
        self.n.append_option(r.n);
        self.c.append_option(r.c);
        let index = r.index.as_deref().unwrap_or_default();
        push_list(&mut self.index, index, |b, &v| b.append_value(v));
        match r.verdicts.as_str() {
            "" => self.verdicts.append_null(),
            v => self.verdicts.append_value(v),
        }
        push_list(&mut self.answers, &r.answers, |b, v| b.append_value(v));
        push_list(&mut self.answer, &r.answer, |b, &v| b.append_value(v));
        push_list(&mut self.truncated, &r.truncated, |b, &v| b.append_value(v));
        let floats = |b: &mut Float64Builder, v: &Option<f64>| b.append_option(*v);
        // A present list of no rollouts stays a list (as `[]` in JSON).
        for (b, v) in [(&mut self.score, &r.score), (&mut self.budget, &r.budget)] {
            match v {
                None => b.append_null(),
                Some(v) => {
                    v.iter().for_each(|x| floats(b.values(), x));
                    b.append(true);
                }
            }
        }
        self.numbered_by_arrival.append_value(r.numbered_by_arrival);
    }

    fn finish(mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.system.finish()),
            Arc::new(self.subset.finish()),
            Arc::new(self.problem.finish()),
            Arc::new(self.by.finish()),
            Arc::new(self.cluster.finish()),
            Arc::new(self.origin.finish()),
            Arc::new(self.n.finish()),
            Arc::new(self.c.finish()),
            Arc::new(self.index.finish()),
            Arc::new(self.verdicts.finish()),
            Arc::new(self.answers.finish()),
            Arc::new(self.answer.finish()),
            Arc::new(self.truncated.finish()),
            Arc::new(self.score.finish()),
            Arc::new(self.budget.finish()),
            Arc::new(self.numbered_by_arrival.finish()),
        ]
    }
}

impl Summary {
    /// [`summary_schema`] with this summary's header JSON (the first line of
    /// [`Summary::to_jsonl`]) under the metadata key `rollstat_summary`.
    pub fn arrow_schema(&self) -> SchemaRef {
        let mut schema = summary_schema();
        schema
            .metadata
            .insert(HEADER_KEY, header_json(&self.header));
        Arc::new(schema)
    }

    /// The rows `rows` as one record batch of `schema` (from
    /// [`Summary::arrow_schema`]).
    pub fn record_batch(schema: &SchemaRef, rows: &[SummaryRow]) -> RecordBatch {
        let mut b = Builders::default();
        rows.iter().for_each(|r| b.push(r));
        RecordBatch::try_new(schema.clone(), b.finish())
            .expect("the builders make the columns of summary_schema")
    }

    /// The summary as record batches of at most [`BATCH_ROWS`] problems
    /// each (none for a summary of no problems), all of
    /// [`Summary::arrow_schema`].
    ///
    /// ```
    /// use rollstat::rows::{RolloutRow, Row};
    /// use rollstat::{summarize, ReportOptions, Source, Summary};
    /// let rows: Vec<Row> = (0..3).map(|i| RolloutRow::new("p1", i == 1).rollout(i).into()).collect();
    /// let s = summarize(&[Source::Rows { name: "mem".into(), rows }], &ReportOptions::default()).unwrap();
    /// let (schema, batches) = s.to_arrow();
    /// assert_eq!(batches[0].num_rows(), 1);
    /// let back = Summary::from_arrow("table", &schema, batches.into_iter().map(Ok)).unwrap();
    /// assert_eq!(back, s);
    /// ```
    pub fn to_arrow(&self) -> (SchemaRef, Vec<RecordBatch>) {
        let schema = self.arrow_schema();
        let batches = self
            .rows
            .chunks(BATCH_ROWS)
            .map(|rows| Summary::record_batch(&schema, rows))
            .collect();
        (schema, batches)
    }

    /// A summary back from its schema (the header JSON under the metadata
    /// key `rollstat_summary`) and its record batches, read one batch at a
    /// time; `name` names the source in errors (`name: row 3 (problem
    /// 'p'): …`).
    pub fn from_arrow(
        name: &str,
        schema: &Schema,
        batches: impl IntoIterator<Item = std::result::Result<RecordBatch, ArrowError>>,
    ) -> Result<Summary> {
        let header_text = schema.metadata.get(HEADER_KEY).ok_or_else(|| {
            Error::input(format!(
                "{name}: not a summary table (no {HEADER_KEY} key in its schema metadata)"
            ))
        })?;
        let header = parse_header(
            &format!("{name}: the {HEADER_KEY} metadata"),
            name,
            header_text,
        )?;
        let mut rows = Vec::new();
        for batch in batches {
            let batch = batch.map_err(|e| Error::input(format!("{name}: {e}")))?;
            let first = rows.len() + 1;
            let columns = Columns::new(&batch).map_err(|e| Error::input(format!("{name}: {e}")))?;
            for i in 0..batch.num_rows() {
                let at = || format!("{name}: row {}", first + i);
                let row = columns
                    .row(i)
                    .map_err(|e| Error::input(format!("{}: {e}", at())))?;
                check_row(&row, &format!("{} (problem '{}')", at(), row.problem))?;
                rows.push(row);
            }
        }
        Ok(Summary { header, rows })
    }
}

/// The columns of one batch, by name; `None` for an absent column.
struct Columns<'a> {
    system: Option<&'a dyn Array>,
    subset: Option<&'a dyn Array>,
    problem: Option<&'a dyn Array>,
    by: Option<&'a dyn Array>,
    cluster: Option<&'a dyn Array>,
    origin: Option<&'a dyn Array>,
    n: Vec<Option<i128>>,
    c: Vec<Option<i128>>,
    index: Option<&'a dyn Array>,
    verdicts: Option<&'a dyn Array>,
    answers: Option<&'a dyn Array>,
    answer: Option<&'a dyn Array>,
    truncated: Option<&'a dyn Array>,
    score: Option<&'a dyn Array>,
    budget: Option<&'a dyn Array>,
    numbered_by_arrival: Option<&'a dyn Array>,
}

type Cell<T> = std::result::Result<T, String>;

impl<'a> Columns<'a> {
    fn new(batch: &'a RecordBatch) -> Cell<Columns<'a>> {
        let get = |name: &str| batch.column_by_name(name).map(|a| a.as_ref());
        let strings = |name: &str| -> Cell<Option<&'a dyn Array>> {
            let a = get(name);
            match a.map(|a| a.data_type()) {
                None | Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => Ok(a),
                Some(t) => Err(format!("column '{name}' is {t}, not strings")),
            }
        };
        let lists = |name: &str| -> Cell<Option<&'a dyn Array>> {
            let a = get(name);
            match a.map(|a| a.data_type()) {
                None | Some(DataType::List(_) | DataType::LargeList(_)) => Ok(a),
                Some(t) => Err(format!("column '{name}' is {t}, not a list")),
            }
        };
        let counts = |name: &str| match get(name) {
            None => Ok(vec![None; batch.num_rows()]),
            Some(a) => integers(a).map_err(|e| format!("column '{name}': {e}")),
        };
        let flags = get("numbered_by_arrival");
        if let Some(t) = flags
            .map(|a| a.data_type())
            .filter(|t| **t != DataType::Boolean)
        {
            return Err(format!("column 'numbered_by_arrival' is {t}, not booleans"));
        }
        Ok(Columns {
            system: strings("system")?,
            subset: strings("subset")?,
            problem: strings("problem")?,
            by: strings("by")?,
            cluster: strings("cluster")?,
            origin: strings("origin")?,
            n: counts("n")?,
            c: counts("c")?,
            index: lists("index")?,
            verdicts: strings("verdicts")?,
            answers: lists("answers")?,
            answer: lists("answer")?,
            truncated: lists("truncated")?,
            score: lists("score")?,
            budget: lists("budget")?,
            numbered_by_arrival: flags,
        })
    }

    /// Row `i` as a summary row (its values not yet checked together).
    fn row(&self, i: usize) -> Cell<SummaryRow> {
        let text = |a: Option<&dyn Array>| a.and_then(|a| string_at(a, i)).map(str::to_owned);
        let required = |a: Option<&dyn Array>, name: &str| {
            text(a).ok_or_else(|| format!("no {name} (a summary row must have one)"))
        };
        let count = |v: &[Option<i128>], name: &str| {
            v[i].map(|x| u64::try_from(x).map_err(|_| format!("{name} is {x}, not a count")))
                .transpose()
        };
        let unsigned = |name: &str, a| -> Cell<Option<Vec<u64>>> {
            let Some(items) = list_at(a, i) else {
                return Ok(None);
            };
            let ints = integers(items.as_ref()).map_err(|e| format!("{name}: {e}"))?;
            ints.into_iter()
                .map(|x| match x {
                    Some(v) => u64::try_from(v)
                        .map_err(|_| format!("{name} holds {v}, not a rollout index or position")),
                    None => Err(format!("{name} holds a null")),
                })
                .collect::<Cell<Vec<u64>>>()
                .map(Some)
        };
        Ok(SummaryRow {
            system: text(self.system),
            subset: text(self.subset),
            problem: required(self.problem, "problem")?,
            by: text(self.by),
            cluster: text(self.cluster),
            origin: required(self.origin, "origin")?,
            n: count(&self.n, "n")?,
            c: count(&self.c, "c")?,
            index: unsigned("index", self.index)?,
            verdicts: text(self.verdicts).unwrap_or_default(),
            answers: answers_at(self.answers, i)?,
            answer: codes_at(self.answer, i)?,
            truncated: unsigned("truncated", self.truncated)?.unwrap_or_default(),
            score: floats_at(self.score, i).map_err(|e| format!("score: {e}"))?,
            budget: floats_at(self.budget, i).map_err(|e| format!("budget: {e}"))?,
            numbered_by_arrival: self
                .numbered_by_arrival
                .is_some_and(|a| a.is_valid(i) && a.as_boolean().value(i)),
        })
    }
}

fn string_at(a: &dyn Array, i: usize) -> Option<&str> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::LargeUtf8 => a.as_string::<i64>().value(i),
        DataType::Utf8View => a.as_string_view().value(i),
        _ => a.as_string::<i32>().value(i),
    })
}

fn list_at(a: Option<&dyn Array>, i: usize) -> Option<ArrayRef> {
    let a = a?;
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::LargeList(_) => a.as_list::<i64>().value(i),
        _ => a.as_list::<i32>().value(i),
    })
}

/// The values of an integer array of any width, nulls as `None`.
fn integers(a: &dyn Array) -> Cell<Vec<Option<i128>>> {
    fn all<T: ArrowPrimitiveType>(a: &dyn Array) -> Vec<Option<i128>>
    where
        T::Native: Into<i128>,
    {
        a.as_primitive::<T>()
            .iter()
            .map(|v| v.map(Into::into))
            .collect()
    }
    Ok(match a.data_type() {
        DataType::Int8 => all::<Int8Type>(a),
        DataType::Int16 => all::<Int16Type>(a),
        DataType::Int32 => all::<Int32Type>(a),
        DataType::Int64 => all::<Int64Type>(a),
        DataType::UInt8 => all::<UInt8Type>(a),
        DataType::UInt16 => all::<UInt16Type>(a),
        DataType::UInt32 => all::<UInt32Type>(a),
        DataType::UInt64 => all::<UInt64Type>(a),
        other => return Err(format!("{other}, not integers")),
    })
}

fn answers_at(a: Option<&dyn Array>, i: usize) -> Cell<Vec<String>> {
    let Some(items) = list_at(a, i) else {
        return Ok(Vec::new());
    };
    if !matches!(
        items.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Err(format!("answers: {}, not strings", items.data_type()));
    }
    (0..items.len())
        .map(|k| {
            string_at(items.as_ref(), k)
                .map(str::to_owned)
                .ok_or_else(|| "answers holds a null".to_string())
        })
        .collect()
}

fn codes_at(a: Option<&dyn Array>, i: usize) -> Cell<Vec<i64>> {
    let Some(items) = list_at(a, i) else {
        return Ok(Vec::new());
    };
    let ints = integers(items.as_ref()).map_err(|e| format!("answer: {e}"))?;
    ints.into_iter()
        .map(|x| match x.map(i64::try_from) {
            Some(Ok(v)) => Ok(v),
            _ => Err("answer holds a null or a code out of range".to_string()),
        })
        .collect()
}

fn floats_at(a: Option<&dyn Array>, i: usize) -> Cell<Option<Vec<Option<f64>>>> {
    let Some(items) = list_at(a, i) else {
        return Ok(None);
    };
    Ok(Some(match items.data_type() {
        DataType::Float64 => items.as_primitive::<Float64Type>().iter().collect(),
        DataType::Float32 => items
            .as_primitive::<Float32Type>()
            .iter()
            .map(|v| v.map(f64::from))
            .collect(),
        t => return Err(format!("{t}, not floats")),
    }))
}
