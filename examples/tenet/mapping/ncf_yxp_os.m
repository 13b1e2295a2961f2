{ S[i, j, k] -> PE[((j) mod 64)] }
{ S[i, j, k] -> T[(floor((j)/64)), (i), (k)] }
