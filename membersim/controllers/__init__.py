"""A simulated cluster's controllers, one module per controller of kube-controller-manager (plus the
scheduler and the kubelets), run by ``manager.ControllerManager``."""
