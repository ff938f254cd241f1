"""Games: seats, the move log, and the services and API that play them."""
