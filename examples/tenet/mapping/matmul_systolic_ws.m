{ S[i, j, k] -> PE[((k) mod 8), ((j) mod 8)] }
{ S[i, j, k] -> T[(floor((j)/8)), (floor((k)/8)), (i + (j) mod 8 + (k) mod 8)] }
