"""The one exception a harness raises for a broken expectation or a setup that did not come up."""


class Failure(Exception):
    pass
