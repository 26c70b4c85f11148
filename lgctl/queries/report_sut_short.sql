-- # Labels $1 (a JSON object) as a config's name is written (lg.sut_short).
SELECT lg.sut_short($1::jsonb) AS sut
