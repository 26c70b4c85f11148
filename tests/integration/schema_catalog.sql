-- every view and function of schema lg as the catalog has it: definition, columns, owner,
-- privileges, comments; the same text means the same objects.
SELECT 'view ' || c.relname || E'\n' || pg_catalog.pg_get_viewdef(c.oid) || E'\ncolumns: ' ||
       (SELECT pg_catalog.string_agg(a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod),
                                     ', ' ORDER BY a.attnum)
        FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0) ||
       E'\nowner: ' || pg_catalog.pg_get_userbyid(c.relowner) ||
       E'\nacl: ' || coalesce(c.relacl::text, '(default)') ||
       E'\ncomment: ' || coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), '')
FROM pg_catalog.pg_class c
WHERE c.relnamespace = 'lg'::regnamespace AND c.relkind IN ('v', 'm')
UNION ALL
SELECT 'function ' || p.oid::regprocedure::text || E'\n' || pg_catalog.pg_get_functiondef(p.oid) ||
       E'\nowner: ' || pg_catalog.pg_get_userbyid(p.proowner) ||
       E'\nacl: ' || coalesce(p.proacl::text, '(default)') ||
       E'\ncomment: ' || coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '')
FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 'lg'::regnamespace
ORDER BY 1;
