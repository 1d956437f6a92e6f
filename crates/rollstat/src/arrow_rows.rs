//! Canonical rollout rows from Arrow record batches (a DataFrame, an
//! Arrow table, a Parquet file of rows): [`ArrowTable`], read as
//! [`crate::Source::Table`] is.
//!
//! Each rollout row whose cells are plain values (a scalar `correct`,
//! strings, integers, finite floats, booleans, nulls) maps straight into
//! its record: typed reads from the columns, no field map, no text, rows
//! in parallel. Every other row — problem rows with list columns, count
//! rows, rows to grade, a value of the wrong type, a bad row — goes
//! through its canonical field map and the engine's row parser, which
//! words the error. Either way a row gets the record its field map parses
//! to: [`PlainColumns::record`] follows `parse_record_budget` field by field, and
//! any value it does not take exactly is left to the parser.
//!
//! A row left to the parser becomes the canonical field map a JSON Lines
//! line would hold ([`cell`]): no JSON text. Values map as JSON does:
//! nulls and non-finite floats → `null`, booleans, integers, floats,
//! strings (any width, views, dictionary-encoded), lists (problem rows:
//! `correct`, `answers`, `responses`) and structs. Only the columns the row
//! parser reads (the canonical fields, `by`, `cluster_by`) are read — it
//! ignores every other field — and one of those of another type (dates,
//! binary, decimals) is an error naming the column.

use crate::error::{Error, Result};
use crate::read::{CanonicalRow, RowFields, RowSink, RowTable};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use rayon::prelude::*;
use rollstat_core::summary::Verdict;
use rollstat_io::record::{is_failed_status, RecordBody, TRUNCATION_REASONS};
use rollstat_io::{FlatAnswer, FlatExtra, FlatRow, ReadError, RowRecord};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// Fields the row parser reads (docs/spec.md §2); a column with one of
/// these names must have a type rows can hold.
const READ_FIELDS: [&str; 20] = [
    "problem",
    "rollout",
    "correct",
    "answer",
    "answers",
    "gold",
    "response",
    "responses",
    "finish_reason",
    "finish_reasons",
    "truncated",
    "status",
    "n",
    "c",
    "model",
    "run",
    "subset",
    "score",
    "scores",
    "output_tokens",
];

/// Deepest nesting of list and struct types accepted.
const MAX_DEPTH: u32 = 64;

/// Whether rows can hold values of this type.
fn supported(t: &DataType, depth: u32) -> bool {
    use DataType::*;
    if depth > MAX_DEPTH {
        return false;
    }
    match t {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Utf8 | LargeUtf8 | Utf8View => true,
        Dictionary(_, v) => supported(v, depth + 1),
        List(f) | LargeList(f) | FixedSizeList(f, _) => supported(f.data_type(), depth + 1),
        Struct(fields) => fields.iter().all(|f| supported(f.data_type(), depth + 1)),
        _ => false,
    }
}

fn json_float(v: f64) -> Value {
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn list(items: ArrayRef) -> Value {
    Value::Array((0..items.len()).map(|i| cell(items.as_ref(), i)).collect())
}

/// The value at row `i` of an array of a [`supported`] type.
fn cell(a: &dyn Array, i: usize) -> Value {
    use DataType::*;
    if a.is_null(i) {
        return Value::Null;
    }
    match a.data_type() {
        Boolean => Value::Bool(a.as_boolean().value(i)),
        Int8 => Value::from(a.as_primitive::<Int8Type>().value(i)),
        Int16 => Value::from(a.as_primitive::<Int16Type>().value(i)),
        Int32 => Value::from(a.as_primitive::<Int32Type>().value(i)),
        Int64 => Value::from(a.as_primitive::<Int64Type>().value(i)),
        UInt8 => Value::from(a.as_primitive::<UInt8Type>().value(i)),
        UInt16 => Value::from(a.as_primitive::<UInt16Type>().value(i)),
        UInt32 => Value::from(a.as_primitive::<UInt32Type>().value(i)),
        UInt64 => Value::from(a.as_primitive::<UInt64Type>().value(i)),
        Float16 => json_float(a.as_primitive::<Float16Type>().value(i).to_f64()),
        Float32 => json_float(f64::from(a.as_primitive::<Float32Type>().value(i))),
        Float64 => json_float(a.as_primitive::<Float64Type>().value(i)),
        Utf8 => Value::String(a.as_string::<i32>().value(i).to_owned()),
        LargeUtf8 => Value::String(a.as_string::<i64>().value(i).to_owned()),
        Utf8View => Value::String(a.as_string_view().value(i).to_owned()),
        Dictionary(..) => {
            let d = a.as_any_dictionary();
            cell(d.values().as_ref(), d.normalized_keys()[i])
        }
        List(_) => list(a.as_list::<i32>().value(i)),
        LargeList(_) => list(a.as_list::<i64>().value(i)),
        FixedSizeList(..) => list(a.as_fixed_size_list().value(i)),
        Struct(fields) => {
            let s = a.as_struct();
            let m = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| (f.name().clone(), cell(c.as_ref(), i)))
                .collect();
            Value::Object(m)
        }
        // Null, and nothing else: `supported` admitted the type.
        _ => Value::Null,
    }
}

/// One column, ready to be read row by row: a dictionary-encoded column
/// has its values converted once.
enum Column<'a> {
    Plain(&'a dyn Array),
    Dictionary {
        keys: Vec<usize>,
        values: Vec<Value>,
        array: &'a dyn Array,
    },
}

impl Column<'_> {
    fn new(a: &dyn Array) -> Column<'_> {
        match a.as_any_dictionary_opt() {
            Some(d) => {
                let values = d.values();
                Column::Dictionary {
                    keys: d.normalized_keys(),
                    values: (0..values.len())
                        .map(|i| cell(values.as_ref(), i))
                        .collect(),
                    array: a,
                }
            }
            None => Column::Plain(a),
        }
    }

    fn get(&self, i: usize) -> Value {
        match self {
            Column::Plain(a) => cell(*a, i),
            Column::Dictionary { array, .. } if array.is_null(i) => Value::Null,
            Column::Dictionary { keys, values, .. } => values[keys[i]].clone(),
        }
    }
}

/// The record batches of a DataFrame or Arrow table, with the extra
/// fields (`by`, `cluster_by`, …) whose columns were checked.
pub struct ArrowTable {
    batches: Vec<RecordBatch>,
    read: Vec<String>,
}

impl ArrowTable {
    /// The table of `batches`; a column the rows read (a canonical field
    /// or one of `read`) of a type no row field can hold is an error
    /// naming it (`{label}: column 'x' …`).
    pub fn new(batches: Vec<RecordBatch>, read: &[String], label: &str) -> Result<ArrowTable> {
        for batch in &batches {
            for field in batch.schema().fields() {
                let name = field.name();
                let reads = READ_FIELDS.contains(&name.as_str()) || read.iter().any(|r| r == name);
                if reads && !supported(field.data_type(), 0) {
                    return Err(Error::input(format!(
                        "{label}: column '{name}' has the Arrow type {}, which a row field cannot \
                         hold (strings, numbers, booleans, lists and structs can); cast it to strings",
                        field.data_type()
                    )));
                }
            }
        }
        Ok(ArrowTable {
            batches,
            read: read.to_vec(),
        })
    }
}

impl crate::Source {
    /// Canonical rows from Arrow record batches (the columns a DataFrame
    /// of rollout rows has: `problem`, `correct`, `rollout`, `answer`, …),
    /// read as [`crate::Source::Table`] is; `read` names the fields the
    /// options read besides the canonical ones (`by`, `cluster_by`, …).
    /// A column of a type no row field can hold is an error naming it.
    pub fn arrow(
        name: impl Into<String>,
        batches: Vec<RecordBatch>,
        read: &[String],
    ) -> Result<crate::Source> {
        let name = name.into();
        let table = ArrowTable::new(batches, read, &name)?;
        Ok(crate::Source::Table {
            name,
            table: crate::Table::new(table),
        })
    }
}

impl From<ArrowTable> for crate::Table {
    fn from(table: ArrowTable) -> crate::Table {
        crate::Table::new(table)
    }
}

/// Rows parsed at a time (a piece is folded before the next is parsed).
const PIECE_ROWS: usize = 1 << 16;

impl RowTable for ArrowTable {
    fn records<'s>(
        &'s self,
        fields: RowFields<'_>,
        sink: RowSink<'_, 's>,
    ) -> Result<(), ReadError> {
        let mut first = 1;
        for batch in &self.batches {
            let b = Batch::new(batch, &self.read, Some(fields));
            for start in (0..batch.num_rows()).step_by(PIECE_ROWS) {
                let end = (start + PIECE_ROWS).min(batch.num_rows());
                let piece = (start..end)
                    .into_par_iter()
                    .map(|i| (first + i as u64, b.record(i, fields)))
                    .collect();
                sink(piece)?;
            }
            first += batch.num_rows() as u64;
        }
        Ok(())
    }

    fn field_maps(&self) -> Vec<CanonicalRow> {
        let mut out = Vec::new();
        for batch in &self.batches {
            let b = Batch::new(batch, &self.read, None);
            let first = out.len() as u64 + 1;
            out.par_extend(
                (0..batch.num_rows())
                    .into_par_iter()
                    .map(|i| (first + i as u64, Ok(b.field_map(i)))),
            );
        }
        out
    }
}

/// One batch: the columns of the field maps, and the plain mapping when
/// the batch admits it (and rows are parsed, with `fields`).
struct Batch<'a> {
    columns: Vec<(String, Column<'a>)>,
    plain: Option<PlainColumns<'a>>,
}

impl<'a> Batch<'a> {
    fn new(batch: &'a RecordBatch, read: &[String], fields: Option<RowFields<'_>>) -> Batch<'a> {
        let extra: Vec<&str> = fields
            .iter()
            .flat_map(|f| [f.by, f.cluster_by, f.budget])
            .flatten()
            .collect();
        let schema = batch.schema();
        let mut columns = Vec::new();
        for (field, array) in schema.fields().iter().zip(batch.columns()) {
            let name = field.name().as_str();
            let reads = READ_FIELDS.contains(&name)
                || read.iter().any(|r| r == name)
                || extra.contains(&name);
            if reads && supported(field.data_type(), 0) {
                columns.push((name.to_string(), Column::new(array.as_ref())));
            }
        }
        // A name given twice: the field map keeps the last column; leave
        // such a batch to it.
        let unique = columns
            .iter()
            .enumerate()
            .all(|(i, (n, _))| columns[..i].iter().all(|(m, _)| m != n));
        let plain = fields
            .filter(|_| unique)
            .and_then(|f| PlainColumns::new(batch, f));
        Batch { columns, plain }
    }

    /// Row `i` as a record: mapped straight from the columns, or through
    /// its field map and the engine's parser.
    fn record(&self, i: usize, fields: RowFields<'_>) -> Result<RowRecord<'a>, String> {
        match self.plain.as_ref().and_then(|p| p.record(i)) {
            Some(r) => Ok(r),
            None => fields.parse(&self.field_map(i)).map(RowRecord::from),
        }
    }

    /// The row's canonical field map: what a JSON Lines line holding the
    /// row would parse to.
    fn field_map(&self, i: usize) -> Map<String, Value> {
        self.columns
            .iter()
            .map(|(n, c)| (n.clone(), c.get(i)))
            .collect()
    }
}

/// One cell as the plain mapping reads it: the value [`cell`] would make
/// of it, without building that value.
#[derive(Clone, Copy)]
enum Cell<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    /// Finite (a non-finite float is `Null`, as in [`cell`]).
    Float(f64),
    Str(&'a str),
    /// A list, a struct, or a dictionary inside one.
    Other,
}

fn float(v: f64) -> Cell<'static> {
    if v.is_finite() {
        Cell::Float(v)
    } else {
        Cell::Null
    }
}

/// The cell at row `i` of an array (not dictionary-encoded at the top).
fn view(a: &dyn Array, i: usize) -> Cell<'_> {
    use DataType::*;
    if a.is_null(i) {
        return Cell::Null;
    }
    match a.data_type() {
        Boolean => Cell::Bool(a.as_boolean().value(i)),
        Int8 => Cell::Int(a.as_primitive::<Int8Type>().value(i).into()),
        Int16 => Cell::Int(a.as_primitive::<Int16Type>().value(i).into()),
        Int32 => Cell::Int(a.as_primitive::<Int32Type>().value(i).into()),
        Int64 => Cell::Int(a.as_primitive::<Int64Type>().value(i)),
        UInt8 => Cell::Int(a.as_primitive::<UInt8Type>().value(i).into()),
        UInt16 => Cell::Int(a.as_primitive::<UInt16Type>().value(i).into()),
        UInt32 => Cell::Int(a.as_primitive::<UInt32Type>().value(i).into()),
        UInt64 => Cell::UInt(a.as_primitive::<UInt64Type>().value(i)),
        Float16 => float(a.as_primitive::<Float16Type>().value(i).to_f64()),
        Float32 => float(f64::from(a.as_primitive::<Float32Type>().value(i))),
        Float64 => float(a.as_primitive::<Float64Type>().value(i)),
        Utf8 => Cell::Str(a.as_string::<i32>().value(i)),
        LargeUtf8 => Cell::Str(a.as_string::<i64>().value(i)),
        Utf8View => Cell::Str(a.as_string_view().value(i)),
        Null => Cell::Null,
        _ => Cell::Other,
    }
}

/// A column read cell by cell; a dictionary-encoded one through its keys,
/// normalized once.
struct Typed<'a> {
    array: &'a dyn Array,
    dictionary: Option<(Vec<usize>, &'a dyn Array)>,
}

impl<'a> Typed<'a> {
    fn new(array: &'a dyn Array) -> Typed<'a> {
        let dictionary = array
            .as_any_dictionary_opt()
            .map(|d| (d.normalized_keys(), d.values().as_ref()));
        Typed { array, dictionary }
    }

    fn get(&self, i: usize) -> Cell<'a> {
        match &self.dictionary {
            Some(_) if self.array.is_null(i) => Cell::Null,
            Some((keys, values)) => view(*values, keys[i]),
            None => view(self.array, i),
        }
    }
}

/// The cell of an optional column; an absent column reads as null (every
/// field but `answer` means the same by both).
fn get<'a>(column: &Option<Typed<'a>>, i: usize) -> Cell<'a> {
    column.as_ref().map_or(Cell::Null, |c| c.get(i))
}

/// A scalar's text, as the row parser takes a string field: strings as
/// they are, numbers and booleans as JSON spells them; `None` for a list
/// or struct (and for null: the caller handles it first).
fn scalar_text(c: Cell<'_>) -> Option<Cow<'_, str>> {
    match c {
        Cell::Str(s) => Some(Cow::Borrowed(s)),
        Cell::Int(v) => Some(v.to_string().into()),
        Cell::UInt(v) => Some(v.to_string().into()),
        Cell::Float(v) => Number::from_f64(v).map(|n| n.to_string().into()),
        Cell::Bool(b) => Some(b.to_string().into()),
        Cell::Null | Cell::Other => None,
    }
}

/// An optional string field: `Some(None)` for null or absent, `None` when
/// the parser must word the value.
fn text<'a>(column: &Option<Typed<'a>>, i: usize) -> Option<Option<Cow<'a, str>>> {
    match get(column, i) {
        Cell::Null => Some(None),
        c => scalar_text(c).map(Some),
    }
}

/// An optional number field (a score, a budget).
fn number(c: Cell<'_>) -> Option<Option<f64>> {
    match c {
        Cell::Null => Some(None),
        Cell::Int(v) => Some(Some(v as f64)),
        Cell::UInt(v) => Some(Some(v as f64)),
        Cell::Float(v) => Some(Some(v)),
        _ => None,
    }
}

/// A scalar `correct`: true/false, 0/1 or null.
fn verdict(c: Cell<'_>) -> Option<Verdict> {
    let x = match c {
        Cell::Null => return Some(Verdict::Failed),
        Cell::Bool(b) => return Some(if b { Verdict::Correct } else { Verdict::Wrong }),
        Cell::Int(v) => v as f64,
        Cell::UInt(v) => v as f64,
        Cell::Float(v) => v,
        _ => return None,
    };
    if x == 1.0 {
        Some(Verdict::Correct)
    } else if x == 0.0 {
        Some(Verdict::Wrong)
    } else {
        None
    }
}

/// The columns the plain mapping reads, by field (absent: `None`).
struct PlainColumns<'a> {
    problem: Typed<'a>,
    correct: Typed<'a>,
    rollout: Option<Typed<'a>>,
    answer: Option<Typed<'a>>,
    gold: Option<Typed<'a>>,
    response: Option<Typed<'a>>,
    finish_reason: Option<Typed<'a>>,
    truncated: Option<Typed<'a>>,
    status: Option<Typed<'a>>,
    model: Option<Typed<'a>>,
    run: Option<Typed<'a>>,
    subset: Option<Typed<'a>>,
    score: Option<Typed<'a>>,
    n: Option<Typed<'a>>,
    c: Option<Typed<'a>>,
    /// The columns of the fields the options name.
    by: Option<Typed<'a>>,
    cluster: Option<Typed<'a>>,
    budget: Option<Typed<'a>>,
}

/// The column named `name` of `batch`, read typed.
fn column<'a>(batch: &'a RecordBatch, name: &str) -> Option<Typed<'a>> {
    batch.column_by_name(name).map(|a| Typed::new(a.as_ref()))
}

impl<'a> PlainColumns<'a> {
    /// `None` when the batch has no `problem` or no `correct` column (its
    /// rows are count rows, rows to grade, or bad).
    fn new(batch: &'a RecordBatch, fields: RowFields<'_>) -> Option<PlainColumns<'a>> {
        let col = |name| column(batch, name);
        let named = |name: Option<&str>| name.and_then(|n| column(batch, n));
        Some(PlainColumns {
            problem: col("problem")?,
            correct: col("correct")?,
            rollout: col("rollout"),
            answer: col("answer"),
            gold: col("gold"),
            response: col("response"),
            finish_reason: col("finish_reason"),
            truncated: col("truncated"),
            status: col("status"),
            model: col("model"),
            run: col("run"),
            subset: col("subset"),
            score: col("score"),
            n: col("n"),
            c: col("c"),
            by: named(fields.by),
            cluster: named(fields.cluster_by),
            budget: named(fields.budget),
        })
    }

    /// Row `i` as a rollout record, or `None` when the row is anything
    /// else or holds a value the row parser must word. Text is borrowed
    /// from the columns; a row with a selector score is a whole record (a
    /// flat row has no score).
    fn record(&self, i: usize) -> Option<RowRecord<'a>> {
        let verdict = verdict(self.correct.get(i))?;
        // A count row (or a row with both `correct` and counts: an error).
        if !matches!(get(&self.n, i), Cell::Null) || !matches!(get(&self.c, i), Cell::Null) {
            return None;
        }
        let problem = match self.problem.get(i) {
            Cell::Str("") => return None,
            c @ (Cell::Str(_) | Cell::Int(_) | Cell::UInt(_)) => scalar_text(c)?,
            _ => return None,
        };
        let failed = matches!(get(&self.status, i), Cell::Str(s) if is_failed_status(s));
        let index = match get(&self.rollout, i) {
            Cell::Null => None,
            Cell::Int(v) => Some(u64::try_from(v).ok()?),
            Cell::UInt(v) => Some(v),
            _ => return None,
        };
        let answer = match &self.answer {
            None => FlatAnswer::Unknown,
            Some(a) => match a.get(i) {
                Cell::Null => FlatAnswer::Unextracted,
                c => FlatAnswer::Text(scalar_text(c)?),
            },
        };
        let truncated = matches!(get(&self.finish_reason, i), Cell::Str(s) if TRUNCATION_REASONS.contains(&s))
            || matches!(get(&self.truncated, i), Cell::Bool(true));
        let budget = number(get(&self.budget, i))?;
        // Checked as the parser checks them, but not kept: with a verdict
        // the fold reads neither (as on the file paths).
        text(&self.gold, i)?;
        text(&self.response, i)?;
        let score = number(get(&self.score, i))?;
        if budget.is_some_and(|b| b < 0.0) {
            return None;
        }
        let extra = self.extra(i)?;
        let verdict = if failed { Verdict::Failed } else { verdict };
        let mut row = FlatRow::new(problem, index, Some(verdict), answer, truncated, extra);
        row.budget = budget;
        Some(match score {
            None => RowRecord::Flat(row),
            Some(score) => {
                let mut r = row.into_record();
                if let RecordBody::Rollout { score: s, .. } = &mut r.body {
                    *s = Some(score);
                }
                RowRecord::from(r)
            }
        })
    }

    /// The system (`model` and `run`), subset, `by` and cluster values.
    fn extra(&self, i: usize) -> Option<FlatExtra<'a>> {
        let system = match (text(&self.model, i)?, text(&self.run, i)?) {
            (None, None) => None,
            (Some(a), None) | (None, Some(a)) => Some(a),
            (Some(a), Some(b)) => Some(Cow::Owned(format!("{a}/{b}"))),
        };
        Some(FlatExtra {
            system,
            subset: text(&self.subset, i)?,
            by_value: text(&self.by, i)?,
            cluster_value: text(&self.cluster, i)?,
            gold: None,
            response: None,
        })
    }
}
