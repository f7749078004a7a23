"""The learning over the stages: the pipeline data -> tree -> rules (pipeline.py), winnowing
(winnow.py), stratified folds (folds.py), cross-validation and tuning (crossval.py), and the
scikit-learn face of it all, the `C45Rules` estimator (classifier.py) with its growers'
parameters (growers.py)."""
