-- Blocks sealed from here on keep their nested minutes as columns (src/modules/metrics/metrics.minutes.codec.ts),
-- which releases before this one cannot read: this migration changes no table, and its tag in the ledger makes
-- those releases refuse the database instead of failing on every chart of nested families.
SELECT 1;
