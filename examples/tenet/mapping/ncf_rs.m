{ S[i, j, k] -> PE[((j) mod 64)] }
{ S[i, j, k] -> T[(floor((j)/64)), (floor((i)/2)), (floor((k)/2))] }
