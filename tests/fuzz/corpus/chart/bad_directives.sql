-- x: a
-- y: b
-- sort: sideways
-- frobnicate
-- color: red
SELECT 1;
