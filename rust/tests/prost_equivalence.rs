//! Placeholder replaced by the prost equivalence suite.
