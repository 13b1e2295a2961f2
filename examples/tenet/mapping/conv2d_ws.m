{ S[k, c, ox, oy, rx, ry] -> PE[((k) mod 8), ((c) mod 8)] }
{ S[k, c, ox, oy, rx, ry] -> T[(floor((k)/8)), (floor((c)/8)), (oy), (ox)] }
