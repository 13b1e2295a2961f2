{ S[i, j] -> PE[((i) mod 8), ((j) mod 8)] }
{ S[i, j] -> T[(floor((i)/8)), (floor((j)/8))] }
