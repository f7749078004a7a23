"""Where scoring runs besides the library itself: engines that run the exported model."""
