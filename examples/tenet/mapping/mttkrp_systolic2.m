{ S[i, j, k, l] -> PE[((k) mod 8), ((j) mod 8)] }
{ S[i, j, k, l] -> T[(i), (floor((k)/8)), (floor((j)/8)), (l + (j) mod 8 + (k) mod 8)] }
