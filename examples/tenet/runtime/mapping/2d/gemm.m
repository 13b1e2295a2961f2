{ S[i, j, k] -> PE[((i) mod 16), ((j) mod 16)] }
{ S[i, j, k] -> T[(floor((i)/16)), (floor((j)/16)), (k + (i) mod 16 + (j) mod 16)] }
