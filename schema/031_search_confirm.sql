-- 031_search_confirm: a search confirms before it concludes. A probe over its limit is tried
-- again at the same load (lg.search.confirm more times, as RFC 2544 repeats its trials) before
-- the search acts on it; every trial is a run of its own (lg.run.trial: 1 the first at its load,
-- 2 its repeat, ...; NULL reads as 1). A load is over the limit only when all its trials were;
-- the last trial at a load is the one the search acts on. Searches made before this migration
-- had no repeats: confirm 0.
ALTER TABLE lg.search
    ADD COLUMN confirm integer NOT NULL DEFAULT 0 CHECK (confirm BETWEEN 0 AND 3);
ALTER TABLE lg.run ADD COLUMN trial integer CHECK (trial >= 1);
