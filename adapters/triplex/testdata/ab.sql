-- ab(q1, q2, n): server-side A/B timing of two read statements, for comparisons that the round
-- trip's noise hides (adapters/triplex/README.md, "No Memoize"). It prepares both, then executes
-- them alternately n times each, timing every execution with clock_timestamp(), and returns the
-- two medians in microseconds and their ratio. Load it into a server that holds both stores (for
-- example two dbbench_triplex_* schemas on one dsn) and qualify the tables in q1 and q2:
--
--   psql "$DSN" -f adapters/triplex/testdata/ab.sql
--   psql "$DSN" -Atc "SELECT ab(\$q\$SELECT ... FROM s1.bench_fact ...\$q\$, \$q\$SELECT ... FROM s2.bench_fact ...\$q\$, 3000)"
--
-- Session settings (SET enable_memoize = off) apply to both statements.
CREATE OR REPLACE FUNCTION ab(q1 text, q2 text, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; a float8[] := '{}'; b float8[] := '{}'; ma float8; mb float8;
BEGIN
  EXECUTE 'PREPARE qa AS ' || q1;
  EXECUTE 'PREPARE qb AS ' || q2;
  FOR i IN 1..n LOOP
    t0 := clock_timestamp(); EXECUTE 'EXECUTE qa'; a := a || extract(epoch from clock_timestamp() - t0) * 1e6;
    t0 := clock_timestamp(); EXECUTE 'EXECUTE qb'; b := b || extract(epoch from clock_timestamp() - t0) * 1e6;
  END LOOP;
  DEALLOCATE qa;
  DEALLOCATE qb;
  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO ma FROM unnest(a) x;
  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO mb FROM unnest(b) x;
  RETURN round(ma::numeric, 1) || ' ' || round(mb::numeric, 1) || ' ratio ' || round((mb / ma)::numeric, 3);
END $$;
