-- Adds the GIN (jsonb_path_ops) companion of every FerretDB index on top-level fields made
-- before FerretDB was built with gin-indexes.patch, so the equality filters FerretDB pushes
-- down (`_jsonb->'field' @> value`) are served from an index. Safe to run at every start.
DO $$
DECLARE
  r record;
  cols text;
BEGIN
  FOR r IN
    SELECT i.schemaname, i.tablename, i.indexname, i.indexdef
    FROM pg_indexes i
    WHERE i.indexname LIKE '%\_idx'
      AND i.indexdef LIKE '%USING btree (((_jsonb -> %'
      AND i.indexdef !~ '::text\) -> '
      AND NOT EXISTS (
        SELECT 1 FROM pg_indexes g
        WHERE g.schemaname = i.schemaname AND g.indexname = left(i.indexname, -4) || '_gin')
  LOOP
    SELECT string_agg(format('(_jsonb -> %L) jsonb_path_ops', replace(m[1], '''''', '''')), ', ')
      INTO cols
      FROM regexp_matches(r.indexdef, '\(_jsonb -> ''((?:[^'']|'''')*)''::text\)', 'g') AS m;
    EXECUTE format('CREATE INDEX %I ON %I.%I USING gin (%s)',
      left(r.indexname, -4) || '_gin', r.schemaname, r.tablename, cols);
  END LOOP;
END
$$;
