{ S[k, c, ox, oy, rx, ry] -> PE[((c) mod 64)] }
{ S[k, c, ox, oy, rx, ry] -> T[(floor((c)/64)), (k), (oy), (ox)] }
