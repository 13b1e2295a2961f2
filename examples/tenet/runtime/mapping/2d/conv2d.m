{ S[k, c, ox, oy, rx, ry] -> PE[((oy) mod 16), ((ox) mod 16)] }
{ S[k, c, ox, oy, rx, ry] -> T[(k), (floor((oy)/16)), (floor((ox)/16)), (c)] }
