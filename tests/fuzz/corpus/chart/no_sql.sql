-- x: a
-- y: b

   
