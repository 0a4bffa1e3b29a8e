\set k random(1, 1000)
SELECT v FROM kv WHERE k = :k;
