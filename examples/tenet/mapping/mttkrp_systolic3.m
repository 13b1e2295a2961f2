{ S[i, j, k, l] -> PE[((k) mod 8), ((l) mod 8)] }
{ S[i, j, k, l] -> T[(i), (floor((k)/8)), (floor((l)/8)), (j + (k) mod 8 + (l) mod 8)] }
