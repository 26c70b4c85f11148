-- 010_submit_id: a submission carries an id its client chose, so that a retried submit (after a
-- timeout, say) finds the campaign the first one made instead of making a second.
ALTER TABLE lg.campaign ADD COLUMN submit_id text UNIQUE;
