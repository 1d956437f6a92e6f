//! Per-problem columns as the bootstrap reads them.

/// One metric's per-problem values (`NaN`: undefined): a slice, or one code
/// per problem into a small table of values. The coded form is compact
/// when a metric takes few distinct values (a count-based metric is a
/// function of a problem's (n, c)), and one code array can serve many
/// columns.
///
/// ```
/// use rollstat_stats::Column;
/// let codes = [0, 1, 1, 0];
/// let table = [0.25, 1.0];
/// let c = Column::Coded { codes: &codes, table: &table };
/// assert_eq!((c.len(), c.get(2)), (4, 1.0));
/// assert_eq!(c.iter().sum::<f64>(), 2.5);
/// assert_eq!(c.to_vec(), Column::Values(&[0.25, 1.0, 1.0, 0.25]).to_vec());
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Column<'a> {
    /// One value per problem.
    Values(&'a [f64]),
    /// Problem `i`'s value is `table[codes[i]]`.
    Coded {
        /// One code a problem.
        codes: &'a [u32],
        /// The value of each code.
        table: &'a [f64],
    },
}

impl<'a> Column<'a> {
    /// Number of problems.
    pub fn len(&self) -> usize {
        match self {
            Column::Values(v) => v.len(),
            Column::Coded { codes, .. } => codes.len(),
        }
    }

    /// Whether the column has no problem.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Problem `i`'s value.
    #[inline]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Column::Values(v) => v[i],
            Column::Coded { codes, table } => table[codes[i] as usize],
        }
    }

    /// The values in problem order.
    pub fn iter(&self) -> impl Iterator<Item = f64> + 'a {
        let c = *self;
        (0..c.len()).map(move |i| c.get(i))
    }

    /// The values as one vector.
    pub fn to_vec(&self) -> Vec<f64> {
        self.iter().collect()
    }
}
