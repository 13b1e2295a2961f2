{ S[i, j, k, l] -> PE[((i) mod 8), ((j) mod 8)] }
{ S[i, j, k, l] -> T[(k), (floor((i)/8)), (floor((j)/8)), (l + (i) mod 8 + (j) mod 8)] }
