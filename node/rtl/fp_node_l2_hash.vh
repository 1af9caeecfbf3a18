// The L2 table's bucket function (node/l2.py l2_hash is the reference): the key {vid[11:0],
// mac[47:0]} (60 bits) XOR-folded to HB bits, key bit i into bucket bit (i mod HB). Returns 12
// bits; the caller keeps [HB-1:0]. HB 1..12.
function [11:0] fp_node_l2_hash;
    input [59:0] key;
    input integer hb;
    integer i;
    begin
        fp_node_l2_hash = 12'd0;
        for (i = 0; i < 60; i = i + 1) begin
            fp_node_l2_hash[i % hb] = fp_node_l2_hash[i % hb] ^ key[i];
        end
    end
endfunction
