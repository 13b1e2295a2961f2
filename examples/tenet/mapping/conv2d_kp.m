{ S[k, c, ox, oy, rx, ry] -> PE[((k) mod 64)] }
{ S[k, c, ox, oy, rx, ry] -> T[(floor((k)/64)), (c), (ox), (oy)] }
