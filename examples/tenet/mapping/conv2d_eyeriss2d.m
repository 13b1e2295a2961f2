{ S[k, c, ox, oy, rx, ry] -> PE[(ry), ((oy) mod 8)] }
{ S[k, c, ox, oy, rx, ry] -> T[(k), (c), (floor((oy)/8)), (ox)] }
