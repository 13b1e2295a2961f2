2 1
{ S[k, c, ox, oy, rx, ry] : 0 <= k <= 127 and 0 <= c <= 63 and 0 <= ox <= 255 and 0 <= oy <= 255 and 0 <= rx <= 2 and 0 <= ry <= 2 }
{ S[k, c, ox, oy, rx, ry] -> I[c, ox + rx, oy + ry] }
{ S[k, c, ox, oy, rx, ry] -> W[k, c, rx, ry] }
{ S[k, c, ox, oy, rx, ry] -> O[k, ox, oy] }
