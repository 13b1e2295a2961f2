{ S[k, c, ox, oy, rx, ry] -> PE[((oy) mod 256)] }
{ S[k, c, ox, oy, rx, ry] -> T[(k), (floor((oy)/256)), (ox), (c)] }
