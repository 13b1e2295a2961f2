{ S[i, j, k] -> PE[((i) mod 8), ((j) mod 8)] }
{ S[i, j, k] -> T[(floor((i)/8)), (floor((j)/8)), (k + (i) mod 8 + (j) mod 8)] }
