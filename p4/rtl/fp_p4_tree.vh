// fp_p4_tree.vh: elaboration-time geometry of the P4 blocks' reduction trees (radix-r trees of
// registers over n leaves: the TCAM's AND and priority trees, the hash block's XOR and AND trees,
// the deparser's). `include it inside a module body: it declares functions only (no guard, so
// every module that includes it gets its own copy; no macros).

    // nodes of level l of a radix-r tree over n leaves: ceil(n / r^l); level 0 = the leaves
    function integer f_count(input integer n, input integer r, input integer level);
        integer k;
        begin
            f_count = n;
            for (k = 0; k < level; k = k + 1) begin
                f_count = (f_count + r - 1) / r;
            end
        end
    endfunction

    // levels above the leaves, down to one node
    function integer f_levels(input integer n, input integer r);
        integer k;
        begin
            f_levels = 0;
            for (k = 0; k < 16; k = k + 1) begin
                if (f_count(n, r, k) > 1) begin
                    f_levels = k + 1;
                end
            end
        end
    endfunction

    // position of level l's first node in a tree's flat vectors
    function integer f_offset(input integer n, input integer r, input integer level);
        integer k;
        begin
            f_offset = 0;
            for (k = 0; k < level; k = k + 1) begin
                f_offset = f_offset + f_count(n, r, k);
            end
        end
    endfunction
