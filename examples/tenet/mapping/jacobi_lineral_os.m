{ S[i, j] -> PE[((i) mod 64)] }
{ S[i, j] -> T[(floor((i)/64)), (j)] }
