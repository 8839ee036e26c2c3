"""Data augmentation for classifiers with numpy: seeded random draws, a linear
softmax classifier, and mixup."""
