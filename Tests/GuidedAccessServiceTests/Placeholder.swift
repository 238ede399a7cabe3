// Tests arrive with the service.
