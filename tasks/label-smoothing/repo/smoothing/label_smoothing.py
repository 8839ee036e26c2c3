"""Label smoothing regularisation (Szegedy et al., "Rethinking the Inception
Architecture for Computer Vision", CVPR 2016, Sec. 7), with the view of
Mueller, Kornblith and Hinton ("When Does Label Smoothing Help?", NeurIPS 2019).

Write smooth_labels, label_smoothing_cross_entropy, smoothing_decomposition and
smoothed_optimum here (see instruction.md)."""
