{ S[k, c, ox, oy, rx, ry] -> PE[((oy) mod 8), ((ox) mod 8)] }
{ S[k, c, ox, oy, rx, ry] -> T[(k), (floor((oy)/8)), (floor((ox)/8)), (c)] }
