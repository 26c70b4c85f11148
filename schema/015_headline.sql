-- 015_headline: which runs are at the campaign's headline load point (the spec's threads x qd,
-- 16T16Q by default): the figure a review quotes and its bar charts show, where a sweep's other
-- load points are for curves. Never an average over load points. Imports: their one load.
ALTER TABLE lg.run ADD COLUMN headline boolean NOT NULL DEFAULT true;
CREATE OR REPLACE VIEW lg.v_run AS SELECT * FROM lg.run;
