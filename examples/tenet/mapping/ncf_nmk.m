{ S[i, j, k] -> PE[((j) mod 8), ((k) mod 8)] }
{ S[i, j, k] -> T[(floor((i)/8)), (floor((k)/8)), ((i) mod 8), (floor((j)/8))] }
