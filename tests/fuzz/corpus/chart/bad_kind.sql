-- chart: pie
-- x: a
-- y: b
SELECT 1;
