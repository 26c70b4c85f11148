-- x: a
-- y: b
SELECT ':campaign' AS a, ":campaign" AS b, E'\':campaign' AS c, $q$ :campaign $q$, $$x$$, $1,
  x::text, /* :campaign /* nested */ :campaign */ -- :campaign
  :campaign AS d, :campaigns, a$b, ':campaign
